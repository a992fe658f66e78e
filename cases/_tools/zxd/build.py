"""Writer zxd's four round-23 bundles (adapted from cases/_tools/zyl: common.py, prom.py, sim.py copied
unchanged). Each case is a request-level simulation; counters, histograms and the periodic
'Engine NNN:' log lines are all derived from the same request list.
Run: cd cases/_tools/zxd && python3 build.py"""
import json
import math
import os
import random
from datetime import datetime, timezone

from common import write_bundle
from prom import render
from sim import engine_at, stamp, stats_lines

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "../..")

DSV4_CFG = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
    "hidden_size": 4096, "num_hidden_layers": 43, "num_attention_heads": 64,
    "num_key_value_heads": 1, "head_dim": 512, "q_lora_rank": 1024, "kv_lora_rank": 512,
    "qk_rope_head_dim": 64, "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1,
    "moe_intermediate_size": 2048, "vocab_size": 129280, "max_position_embeddings": 1048576,
    "sliding_window": 128, "compress_ratios": [0, 0] + [4, 128] * 20 + [4],
    "index_topk": 512, "num_nextn_predict_layers": 1, "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "ascend", "format": "w8a8_dynamic"},
}
ASCEND_CACHE = {"block_size": "128", "cache_dtype": "auto", "calculate_kv_scales": "False",
                "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
                "num_gpu_blocks": "1024", "num_gpu_blocks_override": "None",
                "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def chunks(p, mbt):
    out = []
    while p > 0:
        out.append(min(mbt, p))
        p -= mbt
    return out


def mkreq(reqs, a, P, H, G, eng, mbt, pre_s_per_tok, step, q=0.003, k=0):
    s = a + q
    f = s + 0.15 + (P - H) * pre_s_per_tok
    e = f + (G - 1) * step
    reqs.append(dict(a=a, s=s, f=f, e=e, eng=eng, P=P, H=H, G=G, M=max(G, 1024), reason="stop",
                     chunks=chunks(P - H, mbt), step=step, k=k))
    return reqs[-1]


def scrapes_for(reqs, engines, T0, WIN, IV, mml, kvb, block, model, cache, kv_extra=0):
    out = []
    for i in range(int(WIN // IV) + 1):
        t = T0 + IV * i
        out.append({"t": float(t), "status": 200,
                    "text": render({e: engine_at(t, reqs, e, mml, kvb, block, kv_extra=kv_extra) for e in engines},
                                   model, cache)})
    return out


def http_lines(reqs, T0, WIN, pid, rng):
    return [(r["e"], f"(APIServer pid={pid}) INFO:     10.0.3.{rng.randint(2, 60)}:{rng.randint(40000, 60000)} - "
                     "\"POST /v1/chat/completions HTTP/1.1\" 200 OK") for r in reqs if T0 - 60 < r["e"] <= T0 + WIN]


# ---------------------------------------------------------------- case 1: vllm-ascend#13627
def case1():
    cid = "zxd-dsv4-nightly-block128-short-prompts"
    rng = random.Random(13627)
    T0 = int(datetime(2026, 8, 5, 2, 10, 0, tzinfo=timezone.utc).timestamp())
    WIN, IV, MML, KVB, BLK, MBT = 600, 10.0, 500000, 1024, 128, 8192
    SYS = 7200
    reqs = []
    t = T0 - 120
    while t < T0 + WIN:
        P = SYS + rng.randint(90, 2300)
        mkreq(reqs, t, P, 0, rng.randint(150, 400), 0, MBT, 0.00011, 0.045 + rng.random() * 0.006)
        t += rng.expovariate(1 / 3.0)
    sc = scrapes_for(reqs, [0], T0, WIN, IV, MML, KVB, BLK, "dsv4", ASCEND_CACHE, kv_extra=9)
    API = 1
    boot = T0 - 3600
    path = "/root/.cache/DeepSeek-V4-Flash-0731-w8a8"
    L = [f"INFO {stamp(boot)} [__init__.py:239] Platform plugin ascend is activated",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [api_server.py:1885] vLLM API server version 0.25.1rc2.dev118+g3c7e1a0d2",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [utils.py:233] non-default args: {{'model_tag': '{path}', 'host': '0.0.0.0', "
         f"'port': 8004, 'enable_auto_tool_choice': True, 'tool_call_parser': 'deepseek_v4', 'model': '{path}', "
         "'trust_remote_code': True, 'tokenizer_mode': 'deepseek_v4', 'max_model_len': 500000, 'quantization': 'ascend', "
         "'served_model_name': ['dsv4'], 'reasoning_parser': 'deepseek_v4', 'tensor_parallel_size': 8, "
         "'enable_expert_parallel': True, 'block_size': 128, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': True, "
         "'max_num_batched_tokens': 8192, 'max_num_seqs': 128, 'compilation_config': {'cudagraph_mode': 'FULL_DECODE_ONLY'}}",
         f"(EngineCore_DP0 pid=331) INFO {stamp(boot + 820)} [kv_cache_utils.py:1087] GPU KV cache size: {KVB * BLK:,} tokens",
         f"(EngineCore_DP0 pid=331) INFO {stamp(boot + 820)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KVB * BLK / MML:.2f}x",
         f"(APIServer pid={API}) INFO {stamp(boot + 1010)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8004",
         f"(APIServer pid={API}) INFO:     Application startup complete."]
    ev = http_lines(reqs, T0, WIN, API, rng)
    ev += stats_lines(T0 - 60, T0 + WIN, reqs, 0, lambda t: engine_at(t, reqs, 0, MML, KVB, BLK, kv_extra=9).kv, API,
                      line="loggers.py:257")
    ev.sort(key=lambda x: x[0])
    argv = ["vllm", "serve", path, "--host", "0.0.0.0", "--port", "8004", "--data-parallel-size", "1",
            "--tensor-parallel-size", "8", "--quantization", "ascend", "--served-model-name", "dsv4",
            "--enable-expert-parallel", "--max-model-len", "500000", "--max-num-batched-tokens", "8192",
            "--max-num-seqs", "128", "--block-size", "128", "--enable-prefix-caching", "--trust-remote-code",
            "--gpu-memory-utilization", "0.95", "--enable-auto-tool-choice", "--tool-call-parser", "deepseek_v4",
            "--tokenizer-mode", "deepseek_v4", "--reasoning-parser", "deepseek_v4",
            "--compilation-config", json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY"})]
    args = {"data-parallel-size": 1, "tensor-parallel-size": 8, "quantization": "ascend", "served-model-name": "dsv4",
            "enable-expert-parallel": True, "max-model-len": 500000, "max-num-batched-tokens": 8192,
            "max-num-seqs": 128, "block-size": 128, "enable-prefix-caching": True, "gpu-memory-utilization": 0.95}
    cache = dict(ASCEND_CACHE, gpu_memory_utilization="0.95")
    sc = scrapes_for(reqs, [0], T0, WIN, IV, MML, KVB, BLK, "dsv4", cache, kv_extra=9)
    server = {"version": {"version": "0.25.1rc2.dev118+g3c7e1a0d2"},
              "models": {"object": "list", "data": [{"id": "dsv4", "object": "model", "created": T0, "owned_by": "vllm",
                                                      "root": path, "parent": None, "max_model_len": MML}]}, "health": 200}
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8004",
                "started_at": T0, "ended_at": T0 + WIN, "interval_s": IV, "complaint": "prefix-miss",
                "notes": "DeepSeek-V4-Flash-0731-w8a8 on one Ascend A2 server (TP8), vllm-ascend nightly-main image; internal chat service, every request starts with the same ~7.2k-token system prompt; the stats line shows Prefix cache hit rate 0.0% all day. NPU memory not sampled (no NVML)"}
    write_bundle(os.path.join(CASES, cid, "bundle"), manifest, sc, server=server,
                 engine_args={"argv": argv, "args": args}, model_config=DSV4_CFG,
                 logs="\n".join(L + [x[1] for x in ev]) + "\n")
    return cid


# ---------------------------------------------------------------- case 2: vllm-ascend#16156
def case2():
    cid = "zxd-dsv4-a3-dp4-99pct-reads-60"
    rng = random.Random(16156)
    T0 = int(datetime(2026, 9, 4, 3, 59, 0, tzinfo=timezone.utc).timestamp())
    WIN, IV, MML, KVB, BLK, MBT, UNIT = 900, 15.0, 1048576, 4096, 128, 10240, 16384
    reqs = []
    t = T0 - 280
    # (input, concurrency) runs, each request's shared prefix = 99% of the input
    for L_in, conc in [(32768, 1), (32768, 8), (65536, 1), (65536, 4), (131072, 1), (131072, 2)]:
        n = {32768: 6, 65536: 8}.get(L_in, 12)
        shared = int(0.99 * L_in)
        hit = max(0, (shared // UNIT - 1) * UNIT)
        batch_t = t
        for j in range(n):
            eng = j % 4
            a = batch_t + (j // conc) * 0.0
            r = mkreq(reqs, a, L_in, hit, rng.randint(1000, 1024), eng, MBT, 0.000012, 0.028 + rng.random() * 0.004, k=0)
            if (j + 1) % conc == 0:
                batch_t = r["e"] + 0.5
        t = max(r["e"] for r in reqs) + 3
    cache = dict(ASCEND_CACHE, num_gpu_blocks=str(KVB), gpu_memory_utilization="0.9")
    sc = scrapes_for(reqs, [0, 1, 2, 3], T0, WIN, IV, MML, KVB, BLK, "dsv4", cache, kv_extra=9)
    API = 248
    boot = T0 - 5400
    path = "/models/DeepSeek-V4-Flash-0731-w8a8"
    L = [f"INFO {stamp(boot)} [__init__.py:239] Platform plugin ascend is activated",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [api_server.py:1885] vLLM API server version 0.26.1",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [utils.py:233] non-default args: {{'model_tag': '{path}', 'port': 8900, "
         f"'model': '{path}', 'tokenizer_mode': 'deepseek_v4', 'max_model_len': 1048576, 'quantization': 'ascend', "
         "'served_model_name': ['dsv4'], 'reasoning_parser': 'deepseek_v4', 'enable_auto_tool_choice': True, "
         "'tool_call_parser': 'deepseek_v4', 'tensor_parallel_size': 4, 'data_parallel_size': 4, 'enable_expert_parallel': True, "
         "'block_size': 128, 'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 10240, 'max_num_seqs': 64, "
         "'speculative_config': {'method': 'dspark', 'num_speculative_tokens': 1, 'enforce_eager': True}, "
         "'compilation_config': {'cudagraph_mode': 'FULL_DECODE_ONLY'}, 'async_scheduling': True, 'api_server_count': 1}"]
    for e in range(4):
        L.append(f"(EngineCore_DP{e} pid={400 + e}) INFO {stamp(boot + 1500 + e)} [kv_cache_utils.py:1087] GPU KV cache size: {KVB * BLK:,} tokens")
        L.append(f"(EngineCore_DP{e} pid={400 + e}) INFO {stamp(boot + 1500 + e)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KVB * BLK / MML:.2f}x")
    L += [f"(APIServer pid={API}) INFO {stamp(boot + 1800)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8900",
          f"(APIServer pid={API}) INFO:     Application startup complete."]
    ev = http_lines(reqs, T0, WIN, API, rng)
    for e in range(4):
        ev += stats_lines(T0 - 10, T0 + WIN, reqs, e,
                          (lambda ee: (lambda t: engine_at(t, reqs, ee, MML, KVB, BLK, kv_extra=9).kv))(e), API,
                          line="loggers.py:273")
    ev.sort(key=lambda x: x[0])
    argv = ["vllm", "serve", path, "--max-model-len", "1048576", "--max-num-batched-tokens", "10240",
            "--served-model-name", "dsv4", "--gpu-memory-utilization", "0.9", "--api-server-count", "1",
            "--max-num-seqs", "64", "--data-parallel-size", "4", "--tensor-parallel-size", "4", "--enable-expert-parallel",
            "--tokenizer-mode", "deepseek_v4", "--tool-call-parser", "deepseek_v4", "--enable-auto-tool-choice",
            "--reasoning-parser", "deepseek_v4", "--quantization", "ascend", "--port", "8900", "--block-size", "128",
            "--speculative-config", json.dumps({"method": "dspark", "num_speculative_tokens": 1, "enforce_eager": True}),
            "--compilation-config", json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY"}), "--async-scheduling"]
    args = {"max-model-len": 1048576, "max-num-batched-tokens": 10240, "served-model-name": "dsv4",
            "gpu-memory-utilization": 0.9, "max-num-seqs": 64, "data-parallel-size": 4, "tensor-parallel-size": 4,
            "enable-expert-parallel": True, "quantization": "ascend", "block-size": 128,
            "speculative-config": json.dumps({"method": "dspark", "num_speculative_tokens": 1, "enforce_eager": True}),
            "async-scheduling": True}
    server = {"version": {"version": "0.26.1"},
              "models": {"object": "list", "data": [{"id": "dsv4", "object": "model", "created": T0, "owned_by": "vllm",
                                                      "root": path, "parent": None, "max_model_len": MML}]}, "health": 200}
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8900",
                "started_at": T0, "ended_at": T0 + WIN, "interval_s": IV, "complaint": "prefix-miss",
                "notes": "Atlas 800I A3, DeepSeek-V4-Flash-0731-w8a8, DP4 x TP4. AISBench prefix-cache test after its warm-up, shared prefix set to 99% (synthetic 32k/64k/128k inputs); the server log reads ~60% on every engine. No NVML on Ascend"}
    write_bundle(os.path.join(CASES, cid, "bundle"), manifest, sc, server=server,
                 engine_args={"argv": argv, "args": args}, model_config=DSV4_CFG,
                 logs="\n".join(L + [x[1] for x in ev]) + "\n")
    return cid


# ---------------------------------------------------------------- case 3: vllm-ascend#11035
def case3():
    cid = "zxd-dsv4-a2-8node-ep-near-zero"
    rng = random.Random(11035)
    T0 = int(datetime(2026, 6, 27, 8, 20, 0, tzinfo=timezone.utc).timestamp())
    WIN, IV, MML, KVB, BLK, MBT, NE = 600, 15.0, 131072, 8192, 32, 8192, 16
    reqs = []
    t = T0 - 30
    seen = set()
    n = 0
    while t < T0 + WIN - 40:
        for _ in range(2):
            g = rng.randrange(8)
            eng = rng.randrange(NE)
            P = 16384
            # at most a few hits: a second request of a group on the same engine within the window
            H = 0
            if (g, eng) in seen and rng.random() < 0.05:
                H = 8192
            seen.add((g, eng))
            mkreq(reqs, t + rng.random() * 0.3, P, H, rng.randint(480, 512), eng, MBT, 0.00009, 0.05 + rng.random() * 0.01, k=0)
            n += 1
        t += 2.6
    cache = dict(ASCEND_CACHE, block_size="32", num_gpu_blocks=str(KVB), gpu_memory_utilization="0.9")
    sc = scrapes_for(reqs, list(range(NE)), T0, WIN, IV, MML, KVB, BLK, "dsv4", cache, kv_extra=30)
    API = 5121
    boot = T0 - 4000
    path = "/mnt/share/weight/DeepSeek-V4-Flash-w8a8-mtp/"
    L = [f"INFO {stamp(boot)} [__init__.py:239] Platform plugin ascend is activated",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [api_server.py:1885] vLLM API server version 0.21.0",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [utils.py:233] non-default args: {{'model_tag': '{path}', 'host': '0.0.0.0', "
         f"'port': 9000, 'model': '{path}', 'max_model_len': 131072, 'quantization': 'ascend', 'served_model_name': ['dsv4'], "
         "'tensor_parallel_size': 8, 'data_parallel_size': 16, 'data_parallel_size_local': 2, 'data_parallel_rank': 0, "
         "'data_parallel_address': '<redacted>', 'data_parallel_rpc_port': 13389, 'enable_expert_parallel': True, 'block_size': 32, "
         "'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 32, "
         "'speculative_config': {'method': 'deepseek_mtp', 'num_speculative_tokens': 1}}"]
    for e in range(2):
        L.append(f"(EngineCore_DP{e} pid={700 + e}) INFO {stamp(boot + 1700 + e)} [kv_cache_utils.py:1087] GPU KV cache size: {KVB * BLK:,} tokens")
        L.append(f"(EngineCore_DP{e} pid={700 + e}) INFO {stamp(boot + 1700 + e)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KVB * BLK / MML:.2f}x")
    L += [f"(APIServer pid={API}) INFO {stamp(boot + 2100)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:9000",
          f"(APIServer pid={API}) INFO:     Application startup complete."]
    ev = http_lines(reqs, T0, WIN, API, rng)
    for e in range(NE):
        ev += stats_lines(T0 - 10, T0 + WIN, reqs, e,
                          (lambda ee: (lambda t: engine_at(t, reqs, ee, MML, KVB, BLK, kv_extra=30).kv))(e), API,
                          line="loggers.py:257")
    ev.sort(key=lambda x: x[0])
    argv = ["vllm", "serve", path, "--host", "0.0.0.0", "--port", "9000", "--data-parallel-size", "16",
            "--data-parallel-size-local", "2", "--data-parallel-rank", "0", "--data-parallel-address", "<redacted>",
            "--data-parallel-rpc-port", "13389", "--tensor-parallel-size", "8", "--enable-expert-parallel",
            "--quantization", "ascend", "--served-model-name", "dsv4", "--max-model-len", "131072",
            "--max-num-batched-tokens", "8192", "--max-num-seqs", "32", "--block-size", "32",
            "--enable-prefix-caching", "--gpu-memory-utilization", "0.9",
            "--speculative-config", json.dumps({"method": "deepseek_mtp", "num_speculative_tokens": 1})]
    args = {"data-parallel-size": 16, "data-parallel-size-local": 2, "tensor-parallel-size": 8,
            "enable-expert-parallel": True, "quantization": "ascend", "max-model-len": 131072,
            "max-num-batched-tokens": 8192, "max-num-seqs": 32, "block-size": 32, "enable-prefix-caching": True,
            "gpu-memory-utilization": 0.9,
            "speculative-config": json.dumps({"method": "deepseek_mtp", "num_speculative_tokens": 1})}
    server = {"version": {"version": "0.21.0"},
              "models": {"object": "list", "data": [{"id": "dsv4", "object": "model", "created": T0, "owned_by": "vllm",
                                                      "root": path, "parent": None, "max_model_len": MML}]}, "health": 200}
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://<head-node>:9000",
                "started_at": T0, "ended_at": T0 + WIN, "interval_s": IV, "complaint": "prefix-miss",
                "notes": "8 Ascend A2 machines, DeepSeek-V4-Flash-w8a8-mtp, large EP (16 DP ranks x TP8), vllm-ascend 0.21.0rc1, block-size 32. ais_bench with 90% shared prefix: prefix cache hit rate near 0 on every engine (same on 0.18.0 at 30/50/90%). Head node API server scraped; no NVML on Ascend"}
    write_bundle(os.path.join(CASES, cid, "bundle"), manifest, sc, server=server,
                 engine_args={"argv": argv, "args": args}, model_config=dict(DSV4_CFG, num_nextn_predict_layers=1),
                 logs="\n".join(L + [x[1] for x in ev]) + "\n")
    return cid


if __name__ == "__main__":
    import sys
    for f in (case1, case2, case3):
        if len(sys.argv) == 1 or f.__name__ in sys.argv[1:]:
            print(f())


# ---------------------------------------------------------------- case 4: vllm PR #46384 (comment of 2026-08-07)
def case4():
    cid = "zxd-hybrid-partial-560-of-1946"
    rng = random.Random(46384)
    T0 = int(datetime(2026, 8, 7, 9, 0, 0, tzinfo=timezone.utc).timestamp())
    WIN, IV, MML, KVB, BLK, MBT = 600, 10.0, 32768, 420, 1056, 8192
    reqs = []
    t = T0 - 60
    recent = []
    while t < T0 + WIN:
        if recent and rng.random() < 0.045:
            P = rng.choice(recent)                      # a retry: byte-identical prompt
            H = (P - 1) // 16 * 16
        else:
            P = 560 + rng.randint(1300, 1460)
            H = 0
            recent = (recent + [P])[-20:]
        mkreq(reqs, t, P, H, rng.randint(200, 300), 0, MBT, 0.000055, 0.0115 + rng.random() * 0.001)
        t += rng.expovariate(1.5)
    cache = {"_block_size_resolved": "True", "block_size": str(BLK), "cache_dtype": "auto", "calculate_kv_scales": "False",
             "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "hash_block_size": "16",
             "is_attention_free": "False", "kv_cache_dtype_skip_layers": "[]", "kv_cache_max_concurrency": "13.53",
             "kv_cache_memory_bytes": "None", "kv_cache_size_tokens": str(KVB * BLK), "kv_offloading_backend": "native",
             "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": str(BLK),
             "mamba_cache_dtype": "auto", "mamba_cache_mode": "align", "mamba_page_size_padded": "None",
             "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(KVB),
             "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
             "user_specified_block_size": "False", "user_specified_mamba_block_size": "False"}
    MODEL = "qwen3.6-27b"
    sc = scrapes_for(reqs, [0], T0, WIN, IV, MML, KVB, BLK, MODEL, cache, kv_extra=1)
    API, ENG = 1, 187
    boot = T0 - 2400
    path = "Qwen/Qwen3.6-27B"
    L = [f"INFO {stamp(boot)} [__init__.py:216] Automatically detected platform cuda.",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [api_server.py:2085] vLLM API server version 0.27.1",
         f"(APIServer pid={API}) INFO {stamp(boot + 2)} [utils.py:302] non-default args: {{'model_tag': '{path}', 'model': '{path}', "
         f"'served_model_name': ['{MODEL}'], 'max_model_len': 32768, 'enable_prefix_caching': True, 'mamba_cache_mode': 'align', "
         "'prefix_match_unit': 16, 'language_model_only': True}",
         f"(APIServer pid={API}) INFO {stamp(boot + 8)} [model.py:561] Resolved architecture: Qwen3_5ForConditionalGeneration",
         f"(APIServer pid={API}) INFO {stamp(boot + 8)} [model.py:1702] Using max model len 32768",
         f"(APIServer pid={API}) INFO {stamp(boot + 9)} [scheduler.py:248] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"(APIServer pid={API}) INFO {stamp(boot + 9)} [interface.py:773] Setting attention block size to {BLK} tokens to ensure that attention page size is >= mamba page size.",
         f"(APIServer pid={API}) INFO {stamp(boot + 9)} [interface.py:797] Padding mamba page size by 0.78% to ensure that mamba page size and attention page size are exactly equal.",
         f"(EngineCore_DP0 pid={ENG}) INFO {stamp(boot + 95)} [gpu_worker.py:402] Available KV cache memory: 62.71 GiB",
         f"(EngineCore_DP0 pid={ENG}) INFO {stamp(boot + 96)} [kv_cache_utils.py:1317] GPU KV cache size: {KVB * BLK:,} tokens",
         f"(EngineCore_DP0 pid={ENG}) INFO {stamp(boot + 96)} [kv_cache_utils.py:1322] Maximum concurrency for 32,768 tokens per request: 13.53x",
         f"(APIServer pid={API}) INFO {stamp(boot + 160)} [api_server.py:2145] Starting vLLM API server 0 on http://0.0.0.0:8000",
         f"(APIServer pid={API}) INFO:     Application startup complete."]
    ev = http_lines(reqs, T0, WIN, API, rng)
    ev += stats_lines(T0 - 60, T0 + WIN, reqs, 0, lambda t: engine_at(t, reqs, 0, MML, KVB, BLK, kv_extra=1).kv, API,
                      line="loggers.py:259")
    ev.sort(key=lambda x: x[0])
    argv = ["vllm", "serve", path, "--served-model-name", MODEL, "--max-model-len", "32768", "--enable-prefix-caching",
            "--mamba-cache-mode", "align", "--prefix-match-unit", "16", "--language-model-only"]
    args = {"served-model-name": MODEL, "max-model-len": 32768, "enable-prefix-caching": True,
            "mamba-cache-mode": "align", "prefix-match-unit": 16, "language-model-only": True}
    layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(64)]
    mc = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
          "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64,
                          "layer_types": layer_types, "full_attention_interval": 4, "num_attention_heads": 24,
                          "num_key_value_heads": 4, "head_dim": 256, "linear_num_key_heads": 16,
                          "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                          "linear_conv_kernel_dim": 4, "intermediate_size": 17408, "max_position_embeddings": 262144,
                          "vocab_size": 248320, "torch_dtype": "bfloat16"},
          "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152}, "torch_dtype": "bfloat16"}
    TOTAL = 150_754_820_096
    gpu = [{"t": float(T0 + IV * i), "devices": [{"index": 0, "name": "NVIDIA H200", "memory_total": TOTAL,
            "memory_used": 136_010_000_000, "processes": [{"pid": 3512, "name": "VLLM::EngineCore", "used_memory": 135_470_000_000}]}]}
           for i in range(int(WIN // IV) + 1)]
    server = {"version": {"version": "0.27.1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                      "root": path, "parent": None, "max_model_len": MML}]}, "health": 200}
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8000",
                "started_at": T0, "ended_at": T0 + WIN, "interval_s": IV, "complaint": "prefix-miss",
                "notes": "one H200, hybrid Qwen3.5-architecture model, mamba_cache_mode align with the partial-prefix-hit work (prefix-match-unit 16). Production traffic: every request starts with the same 560-token system/context prefix, then ~1.4k tokens of unique content; hit rate stays in the low single digits"}
    write_bundle(os.path.join(CASES, cid, "bundle"), manifest, sc, server=server,
                 engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu,
                 logs="\n".join(L + [x[1] for x in ev]) + "\n")
    sysp = ("You are the support assistant of Northwind Logistics. Answer in the customer's language, be precise, "
            "quote shipment ids exactly, and never promise delivery dates that the tracking data does not show. ") * 11
    with open(os.path.join(CASES, cid, "prompts.jsonl"), "w") as f:
        for i in range(12):
            doc = " ".join(f"record {i}-{j}: parcel {rng.randint(100000, 999999)} scanned at hub {rng.choice('ABCDEFGH')}{rng.randint(1, 40)} status {rng.choice(['in transit', 'held', 'delivered', 'returned'])}." for j in range(75))
            f.write(json.dumps({"messages": [{"role": "system", "content": sysp},
                                             {"role": "user", "content": f"Case #{40210 + i}. Tracking log follows.\n{doc}\nWhat happened to this customer's parcels?"}]}) + "\n")
    return cid


if __name__ == "__main__":
    case4()
