"""zye cases: python3 cases/_tools/zye/cases.py <case-id> (run with the kvdoctor venv python)."""
from __future__ import annotations

import datetime as dt
import random
import sys

from gen import Req, scrape_text, write_bundle

MIB = 1024 * 1024
GIB = 1024 * MIB


def ts(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)


def qwen25_14b_config():
    return {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
        "intermediate_size": 13824, "max_position_embeddings": 131072, "max_window_layers": 48,
        "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 48,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
        "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False,
        "vocab_size": 152064}


def case_4090():
    cid = "zye-4090x4-vram93-idle-healthy"
    rnd = random.Random(1641)
    model = "deepseek-r1-distill-qwen-14b"
    t0 = 1743848400.0  # 2025-04-05 10:20:00 UTC
    start = t0 - 420.0  # server start 7 min before the window
    interval, n = 10.0, 61
    t_end = t0 + interval * (n - 1)
    # light traffic: ~3 requests a minute, reasoning outputs
    reqs, t = [], t0 - 60.0
    while t < t_end - 5:
        t += rnd.expovariate(3 / 60.0)
        p = rnd.randint(150, 1600)
        o = rnd.randint(250, 1400)
        mx = 8192
        tpot = round(rnd.uniform(0.021, 0.024), 4)
        ttft = round(0.05 + p * 0.00012 + rnd.uniform(0.0, 0.04), 3)
        reqs.append(Req(t_arr=t, prompt=p, out=o, queue=round(rnd.uniform(0.002, 0.01), 4), ttft=ttft,
                        tpot=tpot, max_tokens=mx, reason="stop"))
    reqs = [r for r in reqs if r.t_arr >= t0 - 60.0]
    cache_info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
                  "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                  "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": "18158",
                  "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin",
                  "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}

    def iter_obs(tt):
        obs = []
        for r in reqs:
            if r.t_first <= tt:
                obs.append(r.prompt)
                done = min(r.out, 1 + int((tt - r.t_first) / r.tpot))
                obs += [1] * (done - 1)
        return obs

    cfg = {"model": model, "max_model_len": 131072, "num_gpu_blocks": 18158, "block_size": 16,
           "cache_info": cache_info, "iter_obs": iter_obs, "pre09": True}
    scrapes = []
    for i in range(n):
        tt = t0 + i * interval
        scrapes.append({"t": tt, "status": 200, "text": scrape_text(tt, reqs, cfg)})
    # GPU: four 4090s, each ~22845 MiB used of 24564 MiB, flat
    gpu = []
    for i in range(n):
        tt = t0 + i * interval
        devs = []
        for k in range(4):
            used = (22845 + [0, 2, -2, 4][k]) * MIB
            devs.append({"index": k, "name": "NVIDIA GeForce RTX 4090", "memory_total": 24564 * MIB,
                         "memory_used": used,
                         "processes": [{"pid": 2711 + k if k else 2650, "name": "python3" if k else "python3",
                                        "used_memory": used - 262 * MIB}]})
        gpu.append({"t": tt, "devices": devs})
    # logs
    L = []
    s = start
    L.append(f"INFO {ts(s)} [__init__.py:239] Automatically detected platform cuda.")
    L.append(f"INFO {ts(s+4)} [api_server.py:1034] vLLM API server version 0.8.2")
    L.append(f"INFO {ts(s+4)} [api_server.py:1035] args: Namespace(subparser='serve', model_tag='/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', host='0.0.0.0', port=40017, served_model_name=['{model}'], tensor_parallel_size=4, gpu_memory_utilization=0.9, max_model_len=None, enable_prefix_caching=None, enforce_eager=False)")
    L.append(f"INFO {ts(s+12)} [config.py:585] This model supports multiple tasks: {{'generate', 'classify', 'embed', 'reward', 'score'}}. Defaulting to 'generate'.")
    L.append(f"INFO {ts(s+12)} [config.py:1430] Defaulting to use mp for distributed inference")
    L.append(f"INFO {ts(s+12)} [config.py:1611] Chunked prefill is enabled with max_num_batched_tokens=8192.")
    L.append(f"INFO {ts(s+20)} [core.py:58] Initializing a V1 LLM engine (v0.8.2) with config: model='/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+75)} [gpu_model_runner.py:1174] Loading model weights took 6.89 GiB")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+102)} [gpu_worker.py:227] Available KV cache memory: 13.30 GiB")
    L.append(f"INFO {ts(s+103)} [kv_cache_utils.py:537] GPU KV cache size: 290,528 tokens")
    L.append(f"INFO {ts(s+103)} [kv_cache_utils.py:540] Maximum concurrency for 131,072 tokens per request: 2.22x")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+131)} [gpu_model_runner.py:1499] Graph capturing finished in 28 secs, took 0.45 GiB")
    L.append(f"INFO {ts(s+131)} [core.py:138] init engine (profile, create kv cache, warmup model) took 56.12 seconds")
    L.append(f"INFO {ts(s+133)} [api_server.py:1081] Starting vLLM API server on http://0.0.0.0:40017")
    L.append(f"INFO {ts(s+133)} [launcher.py:26] Available routes are:")
    L.append(f"INFO:     Started server process [2590]")
    L.append(f"INFO:     Application startup complete.")
    # per-10s stats lines (0.8 V1 logs at INFO only when throughput is non-zero)
    prev_p = prev_g = 0
    for i in range(-20, n):
        tt = t0 + i * interval
        if tt < start + 140:
            continue
        txt = scrape_text(tt, reqs, cfg)
        vals = {}
        for ln in txt.splitlines():
            if ln.startswith("vllm:prompt_tokens_total") or ln.startswith("vllm:generation_tokens_total") \
                    or ln.startswith("vllm:num_requests_running") or ln.startswith("vllm:num_requests_waiting") \
                    or ln.startswith("vllm:gpu_cache_usage_perc"):
                vals[ln.split("{")[0]] = float(ln.rsplit(" ", 1)[1])
        pt, gt = vals["vllm:prompt_tokens_total"], vals["vllm:generation_tokens_total"]
        dp, dg = (pt - prev_p) / interval, (gt - prev_g) / interval
        if prev_p or prev_g:
            for r in reqs:
                if tt - interval < r.t_arr <= tt:
                    L.append(f"INFO:     10.0.3.17:{40000 + int(r.t_arr) % 20000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            if dp or dg:
                L.append(f"INFO {ts(tt)} [loggers.py:80] Engine 000: Avg prompt throughput: {dp:.1f} tokens/s, "
                         f"Avg generation throughput: {dg:.1f} tokens/s, Running: {int(vals['vllm:num_requests_running'])} reqs, "
                         f"Waiting: {int(vals['vllm:num_requests_waiting'])} reqs, GPU KV cache usage: "
                         f"{vals['vllm:gpu_cache_usage_perc'] * 100:.1f}%, Prefix cache hit rate: 0.0%")
        prev_p, prev_g = pt, gt
    write_bundle(
        cid,
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://gpustack-worker-1:40017",
         "started_at": t0, "ended_at": t_end, "interval_s": interval,
         "notes": "GPUStack worker, 4x RTX 4090, DeepSeek-R1-Distill-Qwen-14B on the vLLM backend; recorded after the operator asked why VRAM shows 93% with GPU at 0%."},
        scrapes,
        server={"version": {"version": "0.8.2"},
                "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm",
                                                        "root": "/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
                                                        "max_model_len": 131072}]},
                "health": 200},
        engine_args={"argv": ["vllm", "serve", "/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
                              "--host", "0.0.0.0", "--port", "40017", "--served-model-name", model,
                              "--tensor-parallel-size", "4"],
                     "args": {"served-model-name": model, "tensor-parallel-size": 4}},
        model_config=qwen25_14b_config(),
        gpu=gpu,
        logs="\n".join(L),
    )


CASES = {"zye-4090x4-vram93-idle-healthy": case_4090}

if __name__ == "__main__":
    for c in sys.argv[1:] or CASES:
        CASES[c]()
        print("built", c)
