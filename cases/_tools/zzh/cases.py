"""Writer zzh's case builders (round 14). Run: /work/main/.venv/bin/python cases/_tools/zzh/cases.py
Seeded, no wall clock; parameters from each case's case.yaml (quoted + assumed)."""
from __future__ import annotations

import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

ROOT = gen.ROOT
MiB = 1024 * 1024
GiB = 1024 * MiB


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def lts(t: float) -> str:  # LMCache log timestamp
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int((t % 1) * 1000):03d}"


def dev(i, name, total, used, pid):
    return {"index": i, "name": name, "memory_total": total, "memory_used": used,
            "processes": [{"pid": pid, "name": "python3", "used_memory": used - 500 * MiB}]}


# ---------------------------------------------------------------- 1: DSv4-Flash, SWA churn, zero hits
def dsv4() -> None:
    cid = "zzh-dsv4-flash-swa-churn-zero-hits"
    t0 = utc(2026, 5, 27, 9, 0, 0)
    mml = 131072
    pool = 520000
    cc = gen.tmpl_cc(gen.V1_T, block_size=256, num_gpu_blocks=pool // 256, gpu_memory_utilization=0.9,
                     enable_prefix_caching="True", cache_dtype="fp8", mamba_cache_mode="none")
    c = gen.Case(cid, "0.19.1", False, "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Flash", mml,
                 t0, 43, 10.0, cc, pool, 256, 256, kv_factor=1.25)
    rnd = random.Random(1401)
    per = [44253] * 7 + [354023 - 7 * 44253]
    reqs, rid = [], 0
    for p in range(7):
        ps = t0 - 20 + p * 60
        for w in range(2):
            for k in range(4):
                reqs.append(gen.Req(rid, ps + w * 19.2 + 0.05 * k, per[w * 4 + k], 0, 64, 64, "length"))
                rid += 1
    gen.simulate(c, reqs, lambda n: 0.031, lambda r, n: 16.9 + rnd.uniform(-0.3, 0.3))
    api = 4127
    logs = [(t0 - 400, f"(APIServer pid={api}) INFO {gen.ts(t0 - 400)} [utils.py:299] vLLM API server version 0.19.1"),
            (t0 - 399, f"(APIServer pid={api}) INFO {gen.ts(t0 - 399)} [utils.py:233] non-default args: {{'model_tag': 'deepseek-ai/DeepSeek-V4-Flash', 'model': 'deepseek-ai/DeepSeek-V4-Flash', 'trust_remote_code': True, 'max_model_len': {mml}, 'tensor_parallel_size': 2, 'kv_cache_dtype': 'fp8', 'block_size': 256, 'enable_prefix_caching': True}}"),
            (t0 - 300, f"(EngineCore_DP0 pid=4301) INFO {gen.ts(t0 - 300)} [kv_cache_utils.py:1313] GPU KV cache size: {pool:,} tokens"),
            (t0 - 299, f"(EngineCore_DP0 pid=4301) INFO {gen.ts(t0 - 299)} [kv_cache_utils.py:1317] Maximum concurrency for {mml:,} tokens per request: 3.97x"),
            (t0 - 200, f"(APIServer pid={api}) INFO {gen.ts(t0 - 200)} [api_server.py:1890] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    logs += gen.stats_lines(c, t0 - 60, t0 + 420, api, "loggers.py:257")
    logs += gen.access_lines(c, api, "/v1/completions")
    used = 131 * GiB
    gpu = gen.gpu_samples(c, [dev(i, "NVIDIA H200 NVL", 143771 * MiB, used, 4390 + i) for i in range(2)])
    argv = ["vllm", "serve", "deepseek-ai/DeepSeek-V4-Flash", "--tensor-parallel-size", "2", "--trust-remote-code",
            "--max-model-len", str(mml), "--kv-cache-dtype", "fp8", "--block-size", "256", "--enable-prefix-caching"]
    ea = {"argv": argv, "args": {"tensor-parallel-size": 2, "trust-remote-code": True, "max-model-len": mml,
                                 "kv-cache-dtype": "fp8", "block-size": 256, "enable-prefix-caching": True}}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.19.1", "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Flash", mml, int(t0 - 200)),
              engine_args=ea, model_config=None, gpu=gpu, logs=logs,
              notes="agentic rotation replay: 8 distinct ~44K-token prefixes, 4 concurrent, pass every 60 s", endpoint="http://dsv4-h200:8000")


# ---------------------------------------------------------------- 2: LMCache CPU full, second pass zero
def lmc_full() -> None:
    cid = "zzh-lmcache-cpu-full-second-pass-zero"
    T = "zw-v1-internvl-l4-running1-frozen"
    t0 = utc(2025, 5, 8, 7, 30, 0)
    mml, pool = 8192, 262144
    cc = gen.tmpl_cc(T, num_gpu_blocks=pool // 16, gpu_memory_utilization="0.9", prefix_caching_hash_algo="builtin")
    c = gen.Case(cid, "0.8.5", False, "served-llm", "/models/served-llm", mml, t0, 61, 10.0, cc, pool, 16, 256, tmpl=T)
    rnd = random.Random(1402)
    reqs = []
    t = t0 - 30
    for i in range(1500):
        t += rnd.expovariate(2.5)
        p = rnd.randint(1200, 2600)
        reqs.append(gen.Req(i, t, p, 32, 128, 128, "length"))
    gen.simulate(c, reqs, lambda n: 0.018 + 0.0009 * n, lambda r, n: 0.05 + r.prompt / 16000)
    api = 1
    logs = [(t0 - 900, f"INFO {gen.ts(t0 - 900)} [api_server.py:1043] vLLM API server version 0.8.5"),
            (t0 - 899, f"INFO {gen.ts(t0 - 899)} [api_server.py:1044] args: Namespace(model='/models/served-llm', served_model_name=['served-llm'], max_model_len={mml}, gpu_memory_utilization=0.9, enable_prefix_caching=True, kv_transfer_config=KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both'))"),
            (t0 - 860, f"[{lts(t0 - 860)}] LMCache INFO: Creating LMCacheEngine with config: {{'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 50.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None}} (cache_engine.py:93:lmcache.experimental.cache_engine)"),
            (t0 - 820, f"INFO {gen.ts(t0 - 820)} [kv_cache_utils.py:634] GPU KV cache size: {pool:,} tokens"),
            (t0 - 819, f"INFO {gen.ts(t0 - 819)} [kv_cache_utils.py:637] Maximum concurrency for {mml:,} tokens per request: 32.00x")]
    logs += [(a, l.replace(f"(APIServer pid={api}) ", "")) for a, l in gen.stats_lines(c, t0 - 60, t0 + 600, api, "loggers.py:111", prefix=False)]
    logs += [(r.t_arr + 0.002, f'INFO:     10.0.3.7:{40000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    for r in reqs:
        hit = 256 if rnd.random() < 0.03 else 0
        rq = f"cmpl-{(r.rid * 2654435761) % (16 ** 12):012x}{r.rid:04d}-0"
        logs.append((r.t_sched + 0.001, f"[{lts(r.t_sched + 0.001)}] LMCache INFO: Reqid: {rq}, Total tokens {r.prompt}, LMCache hit tokens: {hit}, need to load: {max(0, hit - 32)} (vllm_v1_adapter.py:565:lmcache.experimental.integration.vllm.vllm_v1_adapter)"))
        for k in range(min(3, r.prompt // 256)):
            tt = r.t_first + 0.01 + 0.001 * k
            logs.append((tt, f"[{lts(tt)}] LMCache WARNING: Failed to allocate memory for tensor(torch.Size([2, 20, 256, 2048]), torch.bfloat16) because no memory is available (memory_management.py:444:lmcache.experimental.memory_management)"))
    used = 74 * GiB
    gpu = gen.gpu_samples(c, [dev(0, "NVIDIA A100-SXM4-80GB", 81920 * MiB, used, 1)])
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/served-llm", "--served-model-name", "served-llm",
            "--max-model-len", str(mml), "--gpu-memory-utilization", "0.9", "--enable-prefix-caching",
            "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    ea = {"argv": argv, "args": {"model": "/models/served-llm", "max-model-len": mml, "gpu-memory-utilization": 0.9, "enable-prefix-caching": True,
                                 "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'}}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.8.5", "served-llm", "/models/served-llm", mml, int(t0 - 800)),
              engine_args=ea, model_config=None, gpu=gpu, logs=logs,
              notes="second pass of the 1500-prompt benchmark (same dataset, same order); LMCache local_cpu_size 50", endpoint="http://llm-bench:8000")


# ---------------------------------------------------------------- 3: Qwen3.5-27B hits fall to zero (undecided)
def qwen35() -> None:
    cid = "zzh-qwen35-27b-hits-fall-to-zero"
    t0 = utc(2026, 3, 5, 6, 0, 0)
    mml, pool, bs = 262144, 1210000, 528
    cc = gen.tmpl_cc(gen.V1_T, block_size=bs, num_gpu_blocks=pool // bs, gpu_memory_utilization="0.9", enable_prefix_caching="True")
    ver = "0.16.1rc1.dev214+gd6e04f4c4"
    c = gen.Case(cid, ver, False, "/path/Qwen3.5/Qwen3.5-27B", "/path/Qwen3.5/Qwen3.5-27B", mml, t0, 73, 10.0, cc, pool, bs, 256)
    rnd = random.Random(1403)
    reqs, t, i = [], t0 - 120, 0
    while t < t0 + 540:
        rate = 1.5 if t < t0 + 360 else 0.3
        t += rnd.expovariate(rate)
        if t >= t0 + 540:
            break
        user = rnd.randint(2000, 8000)
        if t < t0 + 360:
            p, cached = 4000 + user, (4000 // bs) * bs
        else:
            p = rnd.randint(1500, 9000)
            cached = (4000 // bs) * bs if rnd.random() < 0.1 else 0
        g = rnd.randint(150, 900)
        reqs.append(gen.Req(i, t, p, cached, g, 2048)); i += 1
    gen.simulate(c, reqs, lambda n: 0.021 + 0.0007 * n, lambda r, n: 0.08 + (r.prompt - r.cached) / 22000)
    api = 2211
    logs = [(t0 - 3000, f"(APIServer pid={api}) INFO {gen.ts(t0 - 3000)} [utils.py:287] vLLM API server version {ver}"),
            (t0 - 2999, f"(APIServer pid={api}) INFO {gen.ts(t0 - 2999)} [utils.py:233] non-default args: {{'model_tag': '/path/Qwen3.5/Qwen3.5-27B', 'host': '0.0.0.0', 'port': 8011, 'model': '/path/Qwen3.5/Qwen3.5-27B', 'tensor_parallel_size': 8, 'enable_prefix_caching': True}}"),
            (t0 - 2900, f"(EngineCore_DP0 pid=2390) INFO {gen.ts(t0 - 2900)} [kv_cache_utils.py:1291] GPU KV cache size: {pool:,} tokens"),
            (t0 - 2899, f"(EngineCore_DP0 pid=2390) INFO {gen.ts(t0 - 2899)} [kv_cache_utils.py:1295] Maximum concurrency for {mml:,} tokens per request: 4.62x")]
    logs += gen.stats_lines(c, t0 - 60, t0 + 720, api, "loggers.py:257")
    logs += gen.access_lines(c, api, "/v1/chat/completions")
    gpu = gen.gpu_samples(c, [dev(k, "NVIDIA H100 80GB HBM3", 81559 * MiB, 73100 * MiB, 2400 + k) for k in range(8)])
    argv = ["vllm", "serve", "/path/Qwen3.5/Qwen3.5-27B", "--tensor-parallel-size", "8", "--host", "0.0.0.0", "--port", "8011", "--enable-prefix-caching"]
    ea = {"argv": argv, "args": {"tensor-parallel-size": 8, "host": "0.0.0.0", "port": 8011, "enable-prefix-caching": True}}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(ver, "/path/Qwen3.5/Qwen3.5-27B", "/path/Qwen3.5/Qwen3.5-27B", mml, int(t0 - 2800)),
              engine_args=ea, model_config=None, gpu=gpu, logs=logs, notes="", endpoint="http://10.0.0.5:8011")


# ---------------------------------------------------------------- 4: LMCache local CPU, 4 engines, round robin
def four_engines() -> None:
    cid = "zzh-lmcache-four-engines-local-cpu"
    T = "za-lmcache-summary-zero-hit"
    t0 = utc(2025, 7, 22, 8, 0, 0)
    mml, pool = 8000, 326000
    cc = gen.tmpl_cc(T, num_gpu_blocks=pool // 16, gpu_memory_utilization="0.8")
    c = gen.Case(cid, "0.10.0", False, "mistralai/Mistral-7B-Instruct-v0.2", "mistralai/Mistral-7B-Instruct-v0.2", mml, t0, 49, 10.0, cc, pool, 16, 256, tmpl=T)
    rnd = random.Random(1404)
    docs = [rnd.randint(4700, 5300) for _ in range(150)]
    reqs, t, n = [], t0 - 10, 0
    seen_gpu: dict[int, float] = {}
    store: list[tuple[int, int]] = []  # LMCache local CPU LRU: (doc, tokens)
    cap = 40000
    lm = []
    while True:
        t += rnd.expovariate(1.6)
        if t > t0 + 475:
            break
        d = rnd.randrange(150)
        n += 1
        if n % 4 != 2:  # round robin: engine 2 gets every fourth request
            continue
        q = rnd.randint(40, 90)
        p = docs[d] + q
        hit_gpu = d in seen_gpu
        cached = (docs[d] // 16) * 16 if hit_gpu else 0
        in_cpu = any(x == d for x, _ in store)
        lmhit = (docs[d] // 256) * 256 if in_cpu else 0
        r = gen.Req(len(reqs), t, p, cached, rnd.randint(120, 380), 512)
        reqs.append(r)
        lm.append((r, lmhit, max(0, lmhit - cached)))
        seen_gpu[d] = t
        store = [s for s in store if s[0] != d] + [(d, p)]
        while sum(x for _, x in store) > cap:
            store.pop(0)
    gen.simulate(c, reqs, lambda n_: 0.0125 + 0.0004 * n_, lambda r, n_: 0.03 + (r.prompt - r.cached) / 9000)
    api = 5120
    logs = [(t0 - 600, f"(APIServer pid={api}) INFO {gen.ts(t0 - 600)} [api_server.py:1805] vLLM API server version 0.10.0"),
            (t0 - 599, f"(APIServer pid={api}) INFO {gen.ts(t0 - 599)} [cli_args.py:261] non-default args: {{'model_tag': 'mistralai/Mistral-7B-Instruct-v0.2', 'port': 8002, 'model': 'mistralai/Mistral-7B-Instruct-v0.2', 'max_model_len': 8000, 'gpu_memory_utilization': 0.8, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}}"),
            (t0 - 560, f"[{lts(t0 - 560)}] LMCache INFO: Creating LMCacheEngine with config: {{'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 5.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None}} (cache_engine.py:98:lmcache.v1.cache_engine)"),
            (t0 - 540, f"(EngineCore_0 pid={api + 180}) INFO {gen.ts(t0 - 540)} [kv_cache_utils.py:829] GPU KV cache size: {pool:,} tokens"),
            (t0 - 539, f"(EngineCore_0 pid={api + 180}) INFO {gen.ts(t0 - 539)} [kv_cache_utils.py:833] Maximum concurrency for 8,000 tokens per request: 40.75x")]
    logs += [(a, l.replace(f"(APIServer pid={api}) ", "")) for a, l in gen.stats_lines(c, t0 - 30, t0 + 480, api, "loggers.py:122", prefix=False)]
    logs += gen.access_lines(c, api, "/v1/chat/completions")
    for r, h, ld in lm:
        rq = f"chatcmpl-{(r.rid * 2246822519) % (16 ** 16):016x}{r.rid:016x}"
        logs.append((r.t_sched + 0.001, f"[{lts(r.t_sched + 0.001)}] LMCache INFO: Reqid: {rq}, Total tokens {r.prompt}, LMCache hit tokens: {h}, need to load: {ld} (vllm_v1_adapter.py:739:lmcache.integration.vllm.vllm_v1_adapter)"))
        if r.cached == 0:
            st = (r.prompt // 256) * 256
            tt = r.t_first + 0.02
            logs.append((tt, f"[{lts(tt)}] LMCache INFO: Storing KV cache for {st} out of {st} tokens (skip_leading_tokens=0) for request {rq} (vllm_v1_adapter.py:663:lmcache.integration.vllm.vllm_v1_adapter)"))
    gpu = gen.gpu_samples(c, [dev(0, "NVIDIA A100-SXM4-80GB", 81920 * MiB, 65700 * MiB, api + 180)])
    argv = ["vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.2", "--port", "8002", "--max-model-len", "8000", "--gpu-memory-utilization", "0.8",
            "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    ea = {"argv": argv, "args": {"port": 8002, "max-model-len": 8000, "gpu-memory-utilization": 0.8,
                                 "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'}}
    mc = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
          "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 32768,
          "rope_theta": 1000000.0, "sliding_window": None, "torch_dtype": "bfloat16", "vocab_size": 32000, "rms_norm_eps": 1e-05}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.10.0", "mistralai/Mistral-7B-Instruct-v0.2", "mistralai/Mistral-7B-Instruct-v0.2", mml, int(t0 - 530)),
              engine_args=ea, model_config=mc, gpu=gpu, logs=logs,
              notes="engine 2 of 4 (each with LMCacheConnectorV1, local CPU only); client round-robins requests over the four", endpoint="http://engine2:8002")


ALL = {"zzh-dsv4-flash-swa-churn-zero-hits": dsv4, "zzh-lmcache-cpu-full-second-pass-zero": lmc_full,
       "zzh-qwen35-27b-hits-fall-to-zero": qwen35, "zzh-lmcache-four-engines-local-cpu": four_engines}

if __name__ == "__main__":
    for k in (sys.argv[1:] or ALL):
        ALL[k]()
        print("built", k)
