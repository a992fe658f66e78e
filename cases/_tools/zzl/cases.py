"""Writer zzl's cases (round 14): builds cases/zzl-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzl/cases.py
gen.py is zzg's builder copied unchanged. Seeded, no wall clock. Numbers not quoted are under `assumed:`.
"""
from __future__ import annotations

import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V0T = "c-v0-recompute-warnings-limo32b"      # vLLM 0.7.3 (V0) bundle: families / buckets
V1T = "a-max-num-seqs-100-piecewise-cliff"   # vLLM 0.28.0 (V1) bundle


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv):
    a, i = {}, 2
    while i < len(argv):
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for cast in (int, float):
                try:
                    v = cast(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


def qwen2(layers, hidden, heads, kv, inter, arch="Qwen2ForCausalLM", extra=None):
    d = {"architectures": [arch], "hidden_act": "silu", "hidden_size": hidden, "intermediate_size": inter,
         "max_position_embeddings": 32768, "model_type": "qwen2", "num_attention_heads": heads, "num_hidden_layers": layers,
         "num_key_value_heads": kv, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 152064}
    d.update(extra or {})
    return d


def v0_stats(c, reqs, t_from, t_to, pool, step=5.0, ref="metrics.py:455"):
    L, tt = [], t_from
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    while tt + step <= t_to:
        a, b = tt, tt + step
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        if run or pend or pt or gt:
            L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / step:.1f} tokens/s, Avg generation throughput: {gt / step:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blocks * 16 / pool:.1f}%, CPU KV cache usage: 0.0%."))
        tt = b
    return L


# ------------------------------------------------ 1: kvcache-ai/Mooncake#103 (dev-14)
def mooncake_3s():
    cid = "zzl-mooncake-1p1d-ttft-3s"
    t0 = utc(2025, 2, 13, 8, 10, 0)
    rnd = random.Random(103)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 30, 0
    while t < t0 + 590:
        t += rnd.uniform(4.0, 6.0)
        reqs.append(Req(rid, t, rnd.randint(3040, 3100), 0, rnd.randint(64, 256), 256, "stop")); rid += 1
    blocks = 11470
    pool = blocks * 16
    root = "Qwen/Qwen2.5-14B-Instruct"
    c = Case(cid=cid, version="0.7.2", v0=True, model_name=root, model_root=root, max_model_len=10000, start=t0, n_scrapes=n,
             interval=interval, labels_cc=gen.tmpl_cc(V0T, gpu_memory_utilization="0.8", num_gpu_blocks=str(blocks), num_cpu_blocks="1365",
                                                       enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    gen.simulate(c, reqs, lambda k: 0.0218 + 0.0002 * k, lambda r, k: rnd.uniform(2.55, 3.25), gen_reserve=False)
    ktc = '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer","kv_rank":1,"kv_parallel_size":2}'
    argv = ["vllm", "serve", root, "--port", "8200", "--max-model-len", "10000", "--gpu-memory-utilization", "0.8", "--kv-transfer-config", ktc]
    s = t0 - 600
    logs = [(s, f"INFO {ts(s)} api_server.py:840] vLLM API server version 0.7.2"),
            (s + .1, f"INFO {ts(s)} api_server.py:841] args: Namespace(host=None, port=8200, model='{root}', max_model_len=10000, gpu_memory_utilization=0.8, "
                     f"swap_space=4, block_size=None, enable_prefix_caching=None, kv_transfer_config=KVTransferConfig(kv_connector='MooncakeConnector', kv_buffer_device='cuda', "
                     f"kv_buffer_size=1000000000.0, kv_role='kv_consumer', kv_rank=1, kv_parallel_size=2, kv_ip='127.0.0.1', kv_port=14579))"),
            (s + 6, f"INFO {ts(s + 6)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                    f"dtype=torch.bfloat16, max_seq_len=10000, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
                    f"device_config=cuda, seed=0, served_model_name={root}, num_scheduler_steps=1, enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=True"),
            (s + 8, f"INFO {ts(s + 8)} mooncake_pipe.py:92] Mooncake Configuration loaded successfully."),
            (s + 8.2, f"INFO {ts(s + 8)} simple_connector.py:98] Initializing MooncakeConfig under kv_transfer_config kv_connector='MooncakeConnector' kv_role='kv_consumer' kv_rank=1 kv_parallel_size=2"),
            (s + 40, f"INFO {ts(s + 40)} model_runner.py:1115] Loading model weights took 27.5952 GB"),
            (s + 44, f"INFO {ts(s + 44)} worker.py:266] Memory profiling takes 2.87 seconds"),
            (s + 44.1, f"INFO {ts(s + 44)} worker.py:266] the current vLLM instance can use total_gpu_memory (79.11GiB) x gpu_memory_utilization (0.80) = 63.29GiB"),
            (s + 44.2, f"INFO {ts(s + 44)} worker.py:266] model weights take 27.60GiB; non_torch_memory takes 0.31GiB; PyTorch activation peak memory takes 1.78GiB; the rest of the memory reserved for KV Cache is 33.60GiB."),
            (s + 44.3, f"INFO {ts(s + 44)} executor_base.py:110] # CUDA blocks: {blocks}, # CPU blocks: 1365"),
            (s + 44.4, f"INFO {ts(s + 44)} executor_base.py:115] Maximum concurrency for 10000 tokens per request: {pool / 10000:.2f}x"),
            (s + 62, f"INFO {ts(s + 62)} model_runner.py:1562] Graph capturing finished in 17 secs, total memory used 0.70 GiB"),
            (s + 64, f"INFO {ts(s + 64)} api_server.py:926] Starting vLLM API server on http://0.0.0.0:8200")]
    logs += v0_stats(c, reqs, t0 - 60, t0 + (n - 1) * interval, pool)
    for r in reqs:
        logs.append((r.t_arr + .002, f'INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    used = 64_990 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA H800", "memory_total": 81559 * MiB, "memory_used": used + 520 * MiB,
                               "processes": [{"pid": 1, "name": "python3", "used_memory": used}]}])
    mc = qwen2(48, 5120, 40, 8, 13824)
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.7.2", root, root, 10000, int(s + 64)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Decode instance (kv_consumer) of a 1P1D Mooncake pair on two H800 machines over RDMA; a 3072-token request takes ~3 s to first token through the proxy vs ~200 ms on a single card.",
              endpoint="http://decode-node:8200")
    return c


# ------------------------------------------------ 2: confidential-dot-ai/c8s#140 (holdout-14)
def tls_lb_healthy():
    cid = "zzl-tls-lb-sse-buffer-healthy"
    t0 = utc(2026, 7, 25, 14, 0, 0)
    rnd = random.Random(140)
    interval, n = 10.0, 61
    itl = 0.0055
    reqs, rid = [], 0
    for u in range(32):
        t = t0 - 60 + rnd.uniform(0, 2)
        while t < t0 + 610:
            p, g = rnd.randint(850, 1150), rnd.randint(150, 250)
            reqs.append(Req(rid, t, p, 0, g, 256, "length" if g == 250 else "stop")); rid += 1
            t += 0.022 + (g - 1) * itl + rnd.uniform(0.55, 1.05)
    root = "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"
    pool = 2_293_760
    c = Case(cid=cid, version="0.28.0", v0=False, model_name=root, model_root=root, max_model_len=32768, start=t0, n_scrapes=n,
             interval=interval, labels_cc=gen.tmpl_cc(V1T, gpu_memory_utilization="0.9", num_gpu_blocks=str(pool // 16), kv_cache_size_tokens=str(pool),
                                                       kv_cache_max_concurrency=f"{pool / 32768:.2f}"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V1T)
    gen.simulate(c, reqs, lambda k: 0.0049 + 0.00002 * k, lambda r, k: rnd.uniform(0.017, 0.029), gen_reserve=False)
    argv = ["vllm", "serve", root, "--max-model-len", "32768", "--port", "8000"]
    s = t0 - 1800
    logs = [(s, f"(APIServer pid=1) INFO {ts(s)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.28.0"),
            (s + .1, f"(APIServer pid=1) INFO {ts(s)} [utils.py:233] non-default args: {{'model_tag': '{root}', 'model': '{root}', 'max_model_len': 32768}}"),
            (s + 9, f"(APIServer pid=1) INFO {ts(s + 9)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192."),
            (s + 18, f"(EngineCore pid=211) INFO {ts(s + 18)} [core.py:114] Initializing a V1 LLM engine (v0.28.0) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                     f"dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, enforce_eager=False, "
                     f"kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True"),
            (s + 60, f"(EngineCore pid=211) INFO {ts(s + 60)} [gpu_model_runner.py:5405] Model loading took 29.04 GiB memory and 38.112004 seconds"),
            (s + 92, f"(EngineCore pid=211) INFO {ts(s + 92)} [gpu_worker.py:563] Available KV cache memory: 210.00 GiB"),
            (s + 92.1, f"(EngineCore pid=211) INFO {ts(s + 92)} [kv_cache_utils.py:2146] GPU KV cache size: {pool:,} tokens"),
            (s + 92.2, f"(EngineCore pid=211) INFO {ts(s + 92)} [kv_cache_utils.py:2147] Maximum concurrency for 32,768 tokens per request: {pool / 32768:.2f}x"),
            (s + 110, f"(EngineCore pid=211) INFO {ts(s + 110)} [gpu_model_runner.py:6582] Graph capturing finished in 12 secs, took 1.02 GiB"),
            (s + 125, f"(APIServer pid=1) INFO {ts(s + 125)} [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000")]
    logs += gen.stats_lines(c, t0 - 50, t0 + (n - 1) * interval, 1, "loggers.py:257")
    used = 246_200 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA B300 SXM6 AC", "memory_total": 275_040 * MiB, "memory_used": used + 600 * MiB,
                               "processes": [{"pid": 211, "name": "VLLM::EngineCore", "used_memory": used}]}])
    mc = {"architectures": ["Qwen3MoeForCausalLM"], "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 6144,
          "max_position_embeddings": 262144, "model_type": "qwen3_moe", "moe_intermediate_size": 768, "num_attention_heads": 32,
          "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
          "rope_theta": 10000000, "torch_dtype": "bfloat16", "vocab_size": 151936, "tie_word_embeddings": False,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.28.0", root, root, 32768, int(s + 125)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="vLLM worker (Dynamo) recorded while a c=32 streaming benchmark runs through the tls-lb nginx front door. Client side: through tls-lb TTFT p50 287.2 ms, ITL p50 1.58 ms, 2235 tok/s; in-pod direct TTFT p50 22.4 ms, ITL p50 5.49 ms, 3294 tok/s. Users complain streaming is slow to start.",
              endpoint="http://vllm-worker-0:8000")
    return c


# ------------------------------------------------ 3: vllm#58192 (holdout-14)
def mm_burst():
    cid = "zzl-mm-burst-300-seqs16-queue"
    t0 = utc(2026, 9, 22, 10, 0, 0)
    burst = t0 + 40
    rnd = random.Random(58192)
    interval, n = 5.0, 61
    reqs = []
    for rid in range(300):
        hand = burst + min(22.9, abs(rnd.gauss(12.5, 6.0)) + 0.4)  # pre-engine render wait (not visible to the engine)
        g = 1024 if rnd.random() < 0.03 else max(8, int(rnd.expovariate(1 / 110)))
        reqs.append(Req(rid, hand, 2098, 0, g, 1024, "length" if g == 1024 else "stop", mm=1))
    root = "Qwen/Qwen2.5-VL-7B-Instruct"
    pool = 1_032_192
    c = Case(cid=cid, version="0.29.0", v0=False, model_name=root, model_root=root, max_model_len=8192, start=t0, n_scrapes=n,
             interval=interval, labels_cc=gen.tmpl_cc(V1T, gpu_memory_utilization="0.9", num_gpu_blocks=str(pool // 16), kv_cache_size_tokens=str(pool),
                                                       kv_cache_max_concurrency=f"{pool / 8192:.2f}"),
             pool_tokens=pool, block_size=16, max_num_seqs=16, tmpl=V1T, mm_hits=False)
    gen.simulate(c, reqs, lambda k: 0.0105 + 0.0002 * k, lambda r, k: rnd.uniform(0.22, 0.34), gen_reserve=False)
    argv = ["vllm", "serve", root, "--max-model-len", "8192", "--max-num-seqs", "16", "--max-num-queued-reqs", "166"]
    s = t0 - 900
    logs = [(s, f"(APIServer pid=1) INFO {ts(s)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.29.0"),
            (s + .1, f"(APIServer pid=1) INFO {ts(s)} [utils.py:233] non-default args: {{'model_tag': '{root}', 'model': '{root}', 'max_model_len': 8192, 'max_num_seqs': 16, 'max_num_queued_reqs': 166}}"),
            (s + 9, f"(APIServer pid=1) INFO {ts(s + 9)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192."),
            (s + 18, f"(EngineCore pid=198) INFO {ts(s + 18)} [core.py:114] Initializing a V1 LLM engine (v0.29.0) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                     f"dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, "
                     f"kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True"),
            (s + 50, f"(EngineCore pid=198) INFO {ts(s + 50)} [gpu_model_runner.py:5405] Model loading took 15.63 GiB memory and 21.503311 seconds"),
            (s + 70, f"(EngineCore pid=198) INFO {ts(s + 70)} [gpu_worker.py:563] Available KV cache memory: 55.13 GiB"),
            (s + 70.1, f"(EngineCore pid=198) INFO {ts(s + 70)} [kv_cache_utils.py:2146] GPU KV cache size: {pool:,} tokens"),
            (s + 70.2, f"(EngineCore pid=198) INFO {ts(s + 70)} [kv_cache_utils.py:2147] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x"),
            (s + 84, f"(EngineCore pid=198) INFO {ts(s + 84)} [gpu_model_runner.py:6582] Graph capturing finished in 9 secs, took 0.41 GiB"),
            (s + 95, f"(APIServer pid=1) INFO {ts(s + 95)} [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000")]
    logs += gen.stats_lines(c, t0 - 20, t0 + (n - 1) * interval, 1, "loggers.py:257", mm_line=True)
    for r in reqs:
        logs.append((r.t_end + .001, f'(APIServer pid=1) INFO:     10.4.0.{7 + r.rid % 5}:{40000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 74_900 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": used + 500 * MiB,
                               "processes": [{"pid": 198, "name": "VLLM::EngineCore", "used_memory": used}]}])
    mc = qwen2(28, 3584, 28, 4, 18944, "Qwen2_5_VLForConditionalGeneration", {"model_type": "qwen2_5_vl", "max_position_embeddings": 128000,
               "vision_config": {"depth": 32, "hidden_size": 1280, "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2}})
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.29.0", root, root, 8192, int(s + 95)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="300 chat requests fired at once, one 1275x1650 inline image each (2,098 prompt tokens), max_tokens 1024. Client side: all 300 served, latency p50 21.2 s / p99 35.7 s.",
              endpoint="http://10.4.0.2:8000")
    return c


# ------------------------------------------------ 4: vllm#10884 (holdout-14)
def mooncake_tcp():
    cid = "zzl-mooncake-tcp-a10-tp1-p99-6s"
    t0 = utc(2024, 12, 18, 6, 0, 0)
    rnd = random.Random(10884)
    interval, n = 5.0, 31
    reqs, t, rid = [], t0 + 20, 0
    while rid < 200:
        t += rnd.expovariate(2.0)
        reqs.append(Req(rid, t, rnd.randint(1000, 1030), 0, 6, 6, "length")); rid += 1

    def ttft(r, k):
        if rnd.random() < 0.07:
            return rnd.uniform(3.0, 7.5)
        return max(0.2, rnd.lognormvariate(math.log(0.72), 0.55))
    blocks = 12240
    pool = blocks * 16
    root = "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4"
    c = Case(cid=cid, version="0.6.4.post1", v0=True, model_name=root, model_root=root, max_model_len=4096, start=t0, n_scrapes=n,
             interval=interval, labels_cc=gen.tmpl_cc(V0T, gpu_memory_utilization="0.8", num_gpu_blocks=str(blocks), num_cpu_blocks="4681",
                                                       enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    gen.simulate(c, reqs, lambda k: 0.0140 + 0.0003 * k, ttft, gen_reserve=False)
    for r in reqs:  # rare multi-second stalls between tokens (quoted ITL P99 3.1 s)
        if rnd.random() < 0.04:
            r.step_s = rnd.uniform(1.5, 3.2)
            r.t_end = r.t_first + r.steps() * r.step_s
    ktc = '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer","kv_rank":1,"kv_parallel_size":2}'
    argv = ["vllm", "serve", root, "--port", "8200", "--max-model-len", "4096", "--gpu-memory-utilization", "0.8", "--kv-transfer-config", ktc]
    s = t0 - 300
    logs = [(s, f"INFO {ts(s)} api_server.py:625] vLLM API server version 0.6.4.post1"),
            (s + .1, f"INFO {ts(s)} api_server.py:626] args: Namespace(host=None, port=8200, model='{root}', max_model_len=4096, gpu_memory_utilization=0.8, "
                     f"swap_space=4, kv_transfer_config=KVTransferConfig(kv_connector='MooncakeConnector', kv_buffer_device='cuda', kv_buffer_size=1000000000.0, "
                     f"kv_role='kv_consumer', kv_rank=1, kv_parallel_size=2, kv_ip='127.0.0.1', kv_port=14579))"),
            (s + 5, f"INFO {ts(s + 5)} gptq_marlin.py:109] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel."),
            (s + 6, f"INFO {ts(s + 6)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                    f"dtype=torch.float16, max_seq_len=4096, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=gptq_marlin, enforce_eager=False, kv_cache_dtype=auto, "
                    f"device_config=cuda, seed=0, served_model_name={root}, num_scheduler_steps=1, chunked_prefill_enabled=False, enable_prefix_caching=False, use_async_output_proc=True"),
            (s + 8, f"INFO {ts(s + 8)} mooncake_pipe.py:92] Mooncake Configuration loaded successfully. (protocol: tcp)"),
            (s + 30, f"INFO {ts(s + 30)} model_runner.py:1077] Loading model weights took 5.3921 GB"),
            (s + 33, f"INFO {ts(s + 33)} worker.py:232] Memory profiling results: total_gpu_memory=22.06GiB initial_memory_usage=5.71GiB peak_torch_memory=6.88GiB "
                     f"memory_usage_post_profile=5.83GiB non_torch_memory=0.42GiB kv_cache_size=10.46GiB gpu_memory_utilization=0.80"),
            (s + 33.1, f"INFO {ts(s + 33)} distributed_gpu_executor.py:57] # GPU blocks: {blocks}, # CPU blocks: 4681"),
            (s + 33.2, f"INFO {ts(s + 33)} distributed_gpu_executor.py:61] Maximum concurrency for 4096 tokens per request: {pool / 4096:.2f}x"),
            (s + 50, f"INFO {ts(s + 50)} model_runner.py:1518] Graph capturing finished in 16 secs, total memory used 0.55 GiB"),
            (s + 52, f"INFO {ts(s + 52)} launcher.py:19] Available routes are: /v1/completions, /v1/chat/completions, /metrics, /health"),
            (s + 52.1, "INFO:     Uvicorn running on http://0.0.0.0:8200 (Press CTRL+C to quit)")]
    logs += v0_stats(c, reqs, t0, t0 + (n - 1) * interval, pool, ref="metrics.py:449")
    for r in reqs:
        logs.append((r.t_end + .002, f'INFO:     127.0.0.1:{53000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    used = 18_600 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A10", "memory_total": 23028 * MiB, "memory_used": used + 260 * MiB,
                               "processes": [{"pid": 1, "name": "python3", "used_memory": used}]}])
    mc = qwen2(28, 3584, 28, 4, 18944, extra={"torch_dtype": "float16", "quantization_config": {"bits": 4, "group_size": 128, "desc_act": False,
               "quant_method": "gptq", "sym": True}})
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.6.4.post1", root, root, 4096, int(s + 52)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Decode instance (kv_consumer) of a 1P1D Mooncake (TCP) pair on A10s during a benchmark: 200 requests, input 1024, output 6, qps 2. Client: mean TTFT 1414 ms, median 766 ms, P99 6035 ms.",
              endpoint="http://decode-a10:8200")
    return c


if __name__ == "__main__":
    for f in (mooncake_3s, tls_lb_healthy, mm_burst, mooncake_tcp):
        c = f()
        R = c.reqs
        tt = sorted(r.t_first - r.t_arr for r in R)
        q = sorted(r.t_sched - r.t_arr for r in R)
        print(c.cid, "reqs", len(R), "ttft p50 %.3f mean %.3f p99 %.3f" % (tt[len(tt) // 2], sum(tt) / len(tt), tt[int(.99 * len(tt))]),
              "queue max %.1f" % q[-1], "maxrun", max(sum(1 for r in R if r.t_sched <= c.start + k * c.interval < r.t_end) for k in range(c.n_scrapes)),
              "maxwait", max(sum(1 for r in R if r.t_arr <= c.start + k * c.interval < r.t_sched) for k in range(c.n_scrapes)))
