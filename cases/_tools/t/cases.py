"""Builders of the t-* cases. Run: PYTHONPATH=<worktree> python cases/_tools/t/cases.py [case-id ...]
Deterministic (seeded RNGs, fixed epochs)."""
from __future__ import annotations

import json
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import CASES, Engine, Req, epoch, lmtime, merge_expositions, vtime, write_bundle  # noqa: E402

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



# ------------------------------------------------------------------ helpers for the 0.18-family cases
def cfg0180(*, block, blocks, util, mamba_mode="none", mamba_block="None", apc=True, cache_dtype="auto"):
    return {"_block_size_resolved": "True", "block_size": str(block), "cache_dtype": cache_dtype, "calculate_kv_scales": "False",
            "cpu_kvcache_space_bytes": "None", "enable_prefix_caching": str(apc), "gpu_memory_utilization": str(util),
            "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
            "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": mamba_block,
            "mamba_cache_dtype": "auto", "mamba_cache_mode": mamba_mode, "mamba_page_size_padded": "None",
            "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
            "user_specified_block_size": "False"}


def common_logs(eng, reqs, *, A, t_first_stats, t1, path, client):
    ev = []
    for r in reqs:
        ev.append((r.t_end + 0.01, f"(APIServer pid={A}) INFO:     {client}:{40000 + int(r.t_arrive * 7) % 20000} - \"POST {path} HTTP/1.1\" 200 OK"))
    t = t_first_stats
    while t <= t1 + 5:
        if any(r.t_arrive <= t and r.t_end > t - 10 for r in reqs):
            ev.append((t, f"(APIServer pid={A}) INFO {vtime(t)} [v1/metrics/loggers.py:259] " + eng.stats_line(t - 10, t)))
        t += 10
    ev.sort(key=lambda x: x[0])
    return [l for tt, l in ev if tt <= t1 + 5]


def gpu_rows(t0, t1, devs):
    out, t = [], t0
    while t <= t1 + 1e-6:
        out.append({"t": t, "devices": devs}); t += 10
    return out


def words(rng, n):
    vocab = ("function return value config module request handler cache token stream buffer index schema "
             "field parse render update delete create query filter sort merge branch commit test assert "
             "deploy service client server error retry timeout limit policy user session account").split()
    return " ".join(rng.choice(vocab) for _ in range(n))


# ------------------------------------------------------------------ t-glm5-w4a16-zero-hit-undecided
def t_glm5_w4a16_zero_hit_undecided():
    cid = "t-glm5-w4a16-zero-hit-undecided"
    rng = random.Random(36441)
    model = "/models/GLM-5-w4a16"
    t_boot = epoch(2026, 3, 9, 1, 41, 12)
    t0, t1 = epoch(2026, 3, 9, 1, 58, 0), epoch(2026, 3, 9, 2, 8, 0)

    def pick(i):
        return rng.randint(15000, 25000), 0, rng.randint(120, 220), {"max_tokens": 4096, "reason": "stop"}

    reqs = closed_loop(rng, clients=8, t0=t0 - 300, t1=t1, pick=pick, prefill_rate=300.0, itl=lambda: rng.uniform(0.28, 0.34))
    block, blocks = 64, 5156
    eng = Engine(ver="0180", model="glm-5", reqs=reqs, pool_tokens=block * blocks, block_size=block,
                 cache_cfg=cfg0180(block=block, blocks=blocks, util=0.9), t_created=t_boot + 690.5, step_tokens=8192)
    A, E = 1, 212
    logs = [
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:299] vLLM API server version 0.17.0",
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:235] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'trust_remote_code': True, 'served_model_name': ['glm-5'], 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.9, 'max_model_len': 131072}}",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 5)} [config/model.py:560] Resolved architecture: GlmMoeDsaForCausalLM",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 5)} [config/model.py:1602] Using max model len 131072",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 20)} [v1/engine/core.py:96] Initializing a V1 LLM engine (v0.17.0) with config: model='{model}', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=8, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, served_model_name=glm-5, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"(EngineCore_DP0 pid={E}) (Worker_TP0 pid={E + 9}) INFO {vtime(t_boot + 420)} [v1/worker/gpu_model_runner.py:4311] Model loading took 50.12 GiB memory and 398.772 seconds",
        f"(EngineCore_DP0 pid={E}) (Worker_TP0 pid={E + 9}) INFO {vtime(t_boot + 560)} [v1/worker/gpu_worker.py:424] Available KV cache memory: 30.86 GiB",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 561)} [v1/core/kv_cache_utils.py:1308] GPU KV cache size: {block * blocks:,} tokens",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 561)} [v1/core/kv_cache_utils.py:1313] Maximum concurrency for 131,072 tokens per request: 2.52x",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 688)} [v1/engine/core.py:278] init engine (profile, create kv cache, warmup model) took 264.21 seconds",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 691)} [entrypoints/openai/api_server.py:1352] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"(APIServer pid={A}) INFO:     Application startup complete.",
    ]
    logs += common_logs(eng, reqs, A=A, t_first_stats=t0 - 290, t1=t1, path="/v1/chat/completions", client="172.17.0.1")
    used = int((50.12 + 30.86 + 4.6) * GiB)
    devs = [{"index": i, "name": "NVIDIA H20", "memory_total": 102642532352, "memory_used": used + i * 4 * MiB,
             "processes": [{"pid": E + 9 + i, "name": "python3", "used_memory": used - 500 * MiB + i * 4 * MiB}]} for i in range(8)]
    mc = {"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": 6144, "num_hidden_layers": 78,
          "num_attention_heads": 64, "num_key_value_heads": 64, "kv_lora_rank": 512, "q_lora_rank": 2048,
          "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256, "index_topk": 2048, "index_head_dim": 128,
          "index_n_heads": 32, "n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
          "max_position_embeddings": 202752, "vocab_size": 154880, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
                                  "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 128, "symmetric": True}, "input_activations": None}}}}
    server = {"version": {"version": "0.17.0"}, "models": {"object": "list", "data": [
        {"id": "glm-5", "object": "model", "created": int(t0), "owned_by": "vllm", "root": model, "parent": None,
         "max_model_len": 131072, "permission": []}]}, "health": 200}
    args = {"model": model, "served-model-name": "glm-5", "tensor-parallel-size": 8, "gpu-memory-utilization": 0.9,
            "max-model-len": 131072, "trust-remote-code": True}
    write_bundle(cid, engines=[eng], t0=t0, t1=t1, interval=10.0, endpoint="http://glm5-w4a16:8000",
                 notes="GLM-5 w4a16 behind the OpenAI API, production traffic; prefix cache hit rate reads 0.0%",
                 server=server, engine_args={"argv": None, "args": args}, model_config=mc, gpu=gpu_rows(t0, t1, devs), logs=logs)


BUILDERS["t-glm5-w4a16-zero-hit-undecided"] = t_glm5_w4a16_zero_hit_undecided


def qwen3next_cfg(name):
    return {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "_name_or_path": name,
            "hidden_size": 2048, "num_hidden_layers": 48, "full_attention_interval": 4, "num_attention_heads": 16,
            "num_key_value_heads": 2, "head_dim": 256, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
            "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
            "num_experts": 512, "num_experts_per_tok": 10, "max_position_embeddings": 262144,
            "vocab_size": 151936, "torch_dtype": "bfloat16",
            "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12}


def chat_rows(rng, system, n, tail_words):
    rows = []
    for i in range(n):
        rows.append({"messages": [{"role": "system", "content": system},
                                  {"role": "user", "content": words(rng, rng.randint(*tail_words))}]})
    return rows


# ------------------------------------------------------------------ t-qwen38-next-gb10-block1600-healthy
def t_qwen38_next_gb10_block1600_healthy():
    cid = "t-qwen38-next-gb10-block1600-healthy"
    rng = random.Random(9)
    served = "Qwen/Qwen3.8-Flash-Next"
    t_boot = epoch(2026, 8, 30, 14, 2, 0)
    t0 = epoch(2026, 8, 30, 14, 20, 0)
    t1 = t0 + 580
    B = 1600
    prefixes = [rng.randint(5000, 9000) for _ in range(12)]
    groups = [g for g in range(12) for _ in range(16)]
    seen = set()

    def pick(i):
        if i >= len(groups):
            return 60, 0, 1, {"max_tokens": 1}
        g = groups[i]
        tail = rng.randint(1000, 2400)
        hit = 0 if g not in seen else (prefixes[g] // B) * B
        seen.add(g)
        return prefixes[g] + tail, hit, 256, {"max_tokens": 256}

    reqs = closed_loop(rng, clients=16, t0=t0 + 2, t1=t0 + 572, pick=pick, prefill_rate=900.0,
                       itl=lambda: rng.uniform(0.165, 0.18), gap=(0.0, 0.05))
    reqs = [r for r in reqs if r.prompt > 100][:192]
    q = sum(r.prompt for r in reqs); h = sum(r.hit for r in reqs)
    print(cid, "requests", len(reqs), "hit rate", round(h / q, 3), "end", round(max(r.t_end for r in reqs) - t0, 1))
    blocks = 1104
    eng = Engine(ver="0180", model=served, reqs=reqs, pool_tokens=B * blocks, block_size=B,
                 cache_cfg=cfg0180(block=B, blocks=blocks, util=0.85, mamba_mode="align", mamba_block=str(B)),
                 t_created=t_boot + 905.0, step_tokens=8192)
    A, E = 187, 402
    logs = [
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:299] vLLM API server version 0.1.dev20073+g8e685d198",
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:235] non-default args: {{'model_tag': '/models/Qwen3.8-Flash-Next-NVFP4', 'model': '/models/Qwen3.8-Flash-Next-NVFP4', 'served_model_name': ['{served}'], 'max_model_len': 65536, 'gpu_memory_utilization': 0.85, 'enable_prefix_caching': True, 'max_num_seqs': 64, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 3}}}}",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 6)} [config/model.py:560] Resolved architecture: Qwen3NextForCausalLM",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 7)} [model_executor/models/config.py:281] Setting attention block size to {B} tokens to ensure that attention page size is >= mamba page size.",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 7)} [model_executor/models/config.py:305] Padding mamba page size by 0.42% to ensure that mamba page size and attention page size are exactly equal.",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 600)} [v1/worker/gpu_model_runner.py:4311] Model loading took 44.87 GiB memory and 571.204 seconds",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 800)} [v1/worker/gpu_worker.py:424] Available KV cache memory: 52.41 GiB",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 801)} [v1/core/kv_cache_utils.py:1308] GPU KV cache size: {B * blocks:,} tokens",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 801)} [v1/core/kv_cache_utils.py:1313] Maximum concurrency for 65,536 tokens per request: 26.95x",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 906)} [entrypoints/openai/api_server.py:1352] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"(APIServer pid={A}) INFO:     Application startup complete.",
    ]
    logs += common_logs(eng, reqs, A=A, t_first_stats=t0 + 10, t1=t1, path="/v1/chat/completions", client="127.0.0.1")
    used = int((44.87 + 52.41 + 5.2) * GiB)
    devs = [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128 * 10**9, "memory_used": used,
             "processes": [{"pid": E, "name": "VLLM::EngineCore", "used_memory": used - 400 * MiB}]}]
    args = {"model": "/models/Qwen3.8-Flash-Next-NVFP4", "served-model-name": served, "max-model-len": 65536,
            "gpu-memory-utilization": 0.85, "enable-prefix-caching": True, "max-num-seqs": 64,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}
    server = {"version": {"version": "0.1.dev20073+g8e685d198"}, "models": {"object": "list", "data": [
        {"id": served, "object": "model", "created": int(t0), "owned_by": "vllm", "root": "/models/Qwen3.8-Flash-Next-NVFP4",
         "parent": None, "max_model_len": 65536, "permission": []}]}, "health": 200}
    write_bundle(cid, engines=[eng], t0=t0, t1=t1, interval=10.0, endpoint="http://localhost:8000",
                 notes="serve-prefix-c16-v1 (192 requests, 16 concurrent, grouped by shared prefix), prefix caching ON",
                 server=server, engine_args={"argv": None, "args": args}, model_config=qwen3next_cfg(served),
                 gpu=gpu_rows(t0, t1, devs), logs=logs)
    rows = []
    for g in range(12):
        sysmsg = f"[shared context group {g:02d}] " + words(random.Random(100 + g), int(prefixes[g] * 0.72))
        rows += chat_rows(rng, sysmsg, 2, (110, 430))
    (CASES / cid / "prompts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


BUILDERS["t-qwen38-next-gb10-block1600-healthy"] = t_qwen38_next_gb10_block1600_healthy


# ------------------------------------------------------------------ t-qwen3-coder-next-align-mode-gb10
def t_qwen3_coder_next_align_mode_gb10():
    cid = "t-qwen3-coder-next-align-mode-gb10"
    rng = random.Random(47)
    served = "qwen3-coder-next"
    t_boot = epoch(2026, 2, 15, 9, 30, 0)
    t0, t1 = epoch(2026, 2, 15, 9, 50, 0), epoch(2026, 2, 15, 10, 0, 0)
    B, blocks = 1072, 1205

    def pick(i):
        p = 7500 + rng.randint(700, 1500)
        hit = B if rng.random() < 0.045 else 0
        return p, hit, rng.randint(200, 400), {"max_tokens": 2048, "reason": "stop"}

    reqs = closed_loop(rng, clients=2, t0=t0 - 60, t1=t1, pick=pick, prefill_rate=3200.0,
                       itl=lambda: rng.uniform(0.024, 0.028), gap=(3.0, 12.0))
    q = sum(r.prompt for r in reqs); h = sum(r.hit for r in reqs)
    print(cid, "requests", len(reqs), "hit rate", round(h / q, 4))
    eng = Engine(ver="0180", model=served, reqs=reqs, pool_tokens=B * blocks, block_size=B,
                 cache_cfg=cfg0180(block=B, blocks=blocks, util=0.8, mamba_mode="align", mamba_block=str(B)),
                 t_created=t_boot + 540.0, step_tokens=8192)
    A, E = 96, 311
    model = "Qwen/Qwen3-Coder-Next-FP8"
    logs = [
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:299] vLLM API server version 0.16.0",
        f"(APIServer pid={A}) INFO {vtime(t_boot)} [entrypoints/utils.py:235] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'served_model_name': ['{served}'], 'max_model_len': 131072, 'gpu_memory_utilization': 0.8, 'enable_prefix_caching': True, 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder'}}",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 6)} [config/model.py:560] Resolved architecture: Qwen3NextForCausalLM",
        f"(APIServer pid={A}) WARNING {vtime(t_boot + 6)} [config/vllm.py:1011] Mamba cache mode is set to 'align' for Qwen3NextForCausalLM by default when prefix caching is enabled",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 7)} [model_executor/models/config.py:281] Setting attention block size to {B} tokens to ensure that attention page size is >= mamba page size.",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 7)} [model_executor/models/config.py:305] Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal.",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 380)} [v1/worker/gpu_model_runner.py:4311] Model loading took 74.89 GiB memory and 352.118 seconds",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 470)} [v1/worker/gpu_worker.py:424] Available KV cache memory: 13.47 GiB",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 471)} [v1/core/kv_cache_utils.py:1308] GPU KV cache size: {B * blocks:,} tokens",
        f"(EngineCore_DP0 pid={E}) INFO {vtime(t_boot + 471)} [v1/core/kv_cache_utils.py:1313] Maximum concurrency for 131,072 tokens per request: 9.86x",
        f"(APIServer pid={A}) INFO {vtime(t_boot + 541)} [entrypoints/openai/api_server.py:1352] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"(APIServer pid={A}) INFO:     Application startup complete.",
    ]
    logs += common_logs(eng, reqs, A=A, t_first_stats=t0 - 50, t1=t1, path="/v1/chat/completions", client="192.168.1.50")
    used = int((74.89 + 13.47 + 4.1) * GiB)
    devs = [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128 * 10**9, "memory_used": used,
             "processes": [{"pid": E, "name": "VLLM::EngineCore", "used_memory": used - 350 * MiB}]}]
    args = {"model": model, "served-model-name": served, "max-model-len": 131072, "gpu-memory-utilization": 0.8,
            "enable-prefix-caching": True, "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder"}
    server = {"version": {"version": "0.16.0"}, "models": {"object": "list", "data": [
        {"id": served, "object": "model", "created": int(t0), "owned_by": "vllm", "root": model, "parent": None,
         "max_model_len": 131072, "permission": []}]}, "health": 200}
    write_bundle(cid, engines=[eng], t0=t0, t1=t1, interval=10.0, endpoint="http://spark.local:8000",
                 notes="single DGX Spark, recipe qwen3-coder-next-fp8 with --enable-prefix-caching (default align mamba cache mode); coding assistant traffic",
                 server=server, engine_args={"argv": None, "args": args}, model_config=qwen3next_cfg(model),
                 gpu=gpu_rows(t0, t1, devs), logs=logs)
    sysmsg = "You are a coding assistant working in the user's repository. Tools: " + words(random.Random(4747), 5400)
    rows = chat_rows(rng, sysmsg, 24, (500, 1050))
    (CASES / cid / "prompts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


BUILDERS["t-qwen3-coder-next-align-mode-gb10"] = t_qwen3_coder_next_align_mode_gb10

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[cid]()
        print("built", cid)
