"""Build writer p's bundles: python cases/_tools/p/cases.py (from the worktree root)."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Engine, Req  # noqa: E402

CASES = gen.ROOT / "cases"
GIB = 1024 ** 3


def cc_labels(template_case: str, **kw) -> dict:
    import json
    text = [json.loads(l) for l in (CASES / template_case / "bundle" / "metrics.jsonl").read_text().splitlines()][-1]["text"]
    line = [l for l in text.splitlines() if l.startswith("vllm:cache_config_info{")][0]
    body = line[line.index("{") + 1:line.rindex("}")]
    d = {}
    for part in body.split('",'):
        k, v = part.split("=", 1)
        d[k] = v.strip('"')
    d.pop("engine", None)
    d.update({k: str(v) for k, v in kw.items()})
    return d


# ---------------------------------------------------------------- case 1: Qwen2.5-7B on A10G, 256 in flight
def qwen25_a10g():
    cid = "p-qwen25-7b-a10g-256-conc-preempt"
    rnd = random.Random(611)
    T0 = 1773853200.0  # 2026-03-18 17:00:00 UTC, job already running since 16:48
    warm = 720.0
    start, n, iv = T0, 61, 10.0
    num_blocks = 4819  # 4,818 usable x 16 = 77,088 tokens
    def step(nd, pre, ctx):
        return 0.024 + 0.00016 * nd + 0.000105 * pre + ctx * 57344 / 600e9
    e = Engine(0, num_blocks, 16, 256, step)
    # closed loop: 256 in flight; a new request arrives when one finishes (approximated by
    # running the sim in rounds: pre-generate arrivals at a rate matching throughput)
    reqs = []
    rid = 0
    for k in range(256):
        p = rnd.randint(950, 1150); g = rnd.randint(100, 350)
        reqs.append(Req(rid, T0 - warm + k * 0.01, p, 32, g, 512, "stop")); rid += 1
    e.reqs = reqs
    # iterate: simulate, then add replacement arrivals at each completion time until window end
    t_end = start + (n - 1) * iv + 1
    while True:
        e2 = Engine(0, num_blocks, 16, 256, step)
        for r in e.reqs:
            r.gen = 0; r.blocks = 0; r.prefilled = False; r.t_sched = r.t_first = r.t_end = None; r.preempts = 0
        e2.reqs = e.reqs
        e2.run(T0 - warm, t_end)
        fin = sorted(r.t_end for r in e2.reqs if r.t_end is not None)
        have = len(e2.reqs) - 256
        if len(fin) <= have:
            e = e2
            break
        for tf in fin[have:]:
            p = rnd.randint(950, 1150); g = rnd.randint(100, 350)
            e.reqs.append(Req(rid, tf + 0.002, p, 32, g, 512, "stop")); rid += 1
        e = e2
    model = "Qwen/Qwen2.5-7B-Instruct"
    fams = gen.template("b-cache-salt-per-user")
    cc = cc_labels("b-cache-salt-per-user", num_gpu_blocks=num_blocks)
    pid = 7
    logs = [
        (T0 - 2000, f"(APIServer pid={pid}) INFO {gen.ts(T0-2000)} [utils.py:302]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.18.0"),
        (T0 - 1999, f"(APIServer pid={pid}) INFO {gen.ts(T0-1999)} [utils.py:238] non-default args: {{'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'host': '0.0.0.0', 'port': 8000, 'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 4096, 'max_num_seqs': 256}}"),
        (T0 - 1990, f"(APIServer pid={pid}) INFO {gen.ts(T0-1990)} [scheduler.py:236] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (T0 - 1980, f"(EngineCore pid=91) INFO {gen.ts(T0-1980)} [core.py:105] Initializing a V1 LLM engine (v0.18.0) with config: model='Qwen/Qwen2.5-7B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True"),
        (T0 - 1900, f"(EngineCore pid=91) INFO {gen.ts(T0-1900)} [gpu_model_runner.py:5102] Model loading took 14.25 GiB memory and 61.204117 seconds"),
        (T0 - 1860, f"(EngineCore pid=91) INFO {gen.ts(T0-1860)} [gpu_worker.py:455] Available KV cache memory: 4.12 GiB"),
        (T0 - 1860.1, f"(EngineCore pid=91) INFO {gen.ts(T0-1860)} [kv_cache_utils.py:1611] GPU KV cache size: 77,088 tokens"),
        (T0 - 1860.2, f"(EngineCore pid=91) INFO {gen.ts(T0-1860)} [kv_cache_utils.py:1612] Maximum concurrency for 4,096 tokens per request: 18.82x"),
        (T0 - 1840, f"(EngineCore pid=91) INFO {gen.ts(T0-1840)} [gpu_model_runner.py:6090] Graph capturing finished in 19 secs, took 0.48 GiB"),
        (T0 - 1820, f"(APIServer pid={pid}) INFO {gen.ts(T0-1820)} [api_server.py:588] Starting vLLM server on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines([e], start - 10, start + (n - 1) * iv, pid, "loggers.py:259", num_blocks)
    logs += [(r.t_arr + 0.001, f'(APIServer pid={pid}) INFO:     10.0.3.17:{40000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for r in e.reqs if start - 10 <= r.t_arr <= start + (n - 1) * iv]
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
          "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
          "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    tot = 23028 * 1024 ** 2
    gpu = [{"t": round(start + k * iv, 3), "devices": [{"index": 0, "name": "NVIDIA A10G", "memory_total": tot,
            "memory_used": int(21.31 * GIB), "processes": [{"pid": 91, "name": "VLLM::EngineCore", "used_memory": int(20.87 * GIB)}]}]}
           for k in range(n)]
    ea = {"argv": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "8000", "--max-model-len", "4096", "--max-num-seqs", "256"],
          "args": {"max-model-len": 4096, "max-num-seqs": 256}}
    gen.write(CASES / cid / "bundle", engines=[e], fams=fams, model=model, cc=cc, num_blocks=num_blocks, start=start, n=n,
              interval=iv, server=gen.server_json("0.18.0", model, model, 4096, int(T0 - 1820)), engine_args=ea,
              model_config=mc, gpu=gpu, logs=logs, endpoint="http://vllm-a10g-0:8000",
              notes="Batch job of 5000 requests; runner keeps max_concurrency=256 in flight (fallback). Captured 10 min mid-job.",
              by_reason=False)
    pre = e.preempt_t
    print(cid, "preemptions total", len(pre), "in window", sum(1 for t in pre if start <= t <= start + 600),
          "done", sum(1 for r in e.reqs if r.t_end), "maxrun", max(s[1] for s in e.steps))


# ---------------------------------------------------------------- case 2: Llama-3.2-1B, one request
def llama32_single():
    cid = "p-llama32-1b-one-request-runs-10min-healthy"
    T0 = 1766669320.0  # 2025-12-25 13:28:40 UTC
    start, n, iv = T0 + 230, 61, 10.0  # 13:32:30 .. 13:42:30 ... extend to cover the request
    n = 91  # 15 minutes
    arr = T0 + 431.2  # 13:35:51
    num_blocks = 73801
    def step(nd, pre, ctx):
        if pre:
            return 0.012
        # 4.69 ms at 0 tokens, ~7.0 ms at 45k, flattening to ~7.4 ms near 100k
        x = ctx / 1000.0
        return 0.00469 + 0.00231 * (1 - pow(2.718281828, -x / 22.0)) / (1 - pow(2.718281828, -45 / 22.0)) * 1.0
    e = Engine(0, num_blocks, 16, 256, step)
    e.reqs = [Req(0, arr, 39, 16, 100000, 100000, "length")]
    e.run(T0, start + (n - 1) * iv + 1)
    r = e.reqs[0]
    model = "meta-llama/Llama-3.2-1B"
    fams = gen.template("c-compute-queueing-prefill-saturation")
    cc = cc_labels("c-compute-queueing-prefill-saturation", num_gpu_blocks=num_blocks)
    pid = 324144
    logs = [
        (T0 - 300, f"(APIServer pid={pid}) INFO {gen.ts(T0-300)} [api_server.py:1772] vLLM API server version 0.13.0"),
        (T0 - 299, f"(APIServer pid={pid}) INFO {gen.ts(T0-299)} [utils.py:253] non-default args: {{'model_tag': 'meta-llama/Llama-3.2-1B', 'model': 'meta-llama/Llama-3.2-1B'}}"),
        (T0 - 280, f"(EngineCore_DP0 pid=324377) INFO {gen.ts(T0-280)} [cuda.py:351] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']"),
        (T0 - 270, f"(EngineCore_DP0 pid=324377) INFO {gen.ts(T0-270)} [gpu_model_runner.py:3052] Model loading took 2.3185 GiB memory and 3.911213 seconds"),
        (T0 - 250, f"(EngineCore_DP0 pid=324377) INFO {gen.ts(T0-250)} [gpu_worker.py:359] Available KV cache memory: 36.03 GiB"),
        (T0 - 249.9, f"(EngineCore_DP0 pid=324377) INFO {gen.ts(T0-250)} [kv_cache_utils.py:1087] GPU KV cache size: 1,180,800 tokens"),
        (T0 - 249.8, f"(EngineCore_DP0 pid=324377) INFO {gen.ts(T0-250)} [kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens per request: 9.01x"),
        (T0 - 230, f"(APIServer pid={pid}) INFO {gen.ts(T0-230)} [api_server.py:1520] Starting vLLM API server 0 on http://0.0.0.0:8000"),
        (arr + 0.001, f'(APIServer pid={pid}) INFO:     127.0.0.1:51822 - "POST /v1/chat/completions HTTP/1.1" 200 OK'),
    ]
    logs += [x for x in gen.stats_lines([e], T0 - 10, start + (n - 1) * iv, pid, "loggers.py:248", num_blocks)
             if "Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%" not in x[1] or x[0] < T0 + 250]
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
          "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
          "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
          "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "pretraining_tp": 1,
          "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
          "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
          "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0", "use_cache": True,
          "vocab_size": 128256}
    gpu = [{"t": round(start + k * iv, 3), "devices": [{"index": 0, "name": "NVIDIA L40", "memory_total": 46068 * 1024 ** 2,
            "memory_used": int(40.61 * GIB), "processes": [{"pid": 324377, "name": "VLLM::EngineCore", "used_memory": int(40.17 * GIB)}]}]}
           for k in range(n)]
    ea = {"argv": ["vllm", "serve", "meta-llama/Llama-3.2-1B"], "args": {}}
    gen.write(CASES / cid / "bundle", engines=[e], fams=fams, model=model, cc=cc, num_blocks=num_blocks, start=start, n=n,
              interval=iv, server=gen.server_json("0.13.0", model, model, 131072, int(T0 - 230)), engine_args=ea,
              model_config=mc, gpu=gpu, logs=logs, endpoint="http://localhost:8000",
              notes="One chat completion against the base Llama-3.2-1B; operator asks why KV usage keeps growing.",
              by_reason=False)
    print(cid, "first", r.t_first - arr, "end after", (r.t_end or 0) - arr, "gen", r.gen)


# ---------------------------------------------------------------- case 3: MiniMax-M2.5 on RBLN, DP4
def minimax_rbln():
    cid = "p-minimax-m25-rbln-dp4-prompt-over-12-blocks"
    rnd = random.Random(957)
    T0 = 1787216400.0  # 2026-08-20 09:00:00 UTC
    start, n, iv = T0, 61, 10.0
    num_blocks = 13
    def step(nd, pre, ctx):
        return 0.045 + 0.004 * nd + pre / 6000.0
    engines = []
    rid = 0
    for k in range(4):
        e = Engine(k, num_blocks, 8192, 2, step)
        t = T0 - 900 + rnd.uniform(0, 60)
        while t < T0 + 640:
            p = rnd.randint(20000, 97000); g = rnd.randint(200, 1500)
            cached = max(0, (p - rnd.randint(2000, 9000)) // 8192 * 8192)
            e.reqs.append(Req(rid, t, p, cached, g, 32768, "stop", k)); rid += 1
            t += rnd.uniform(35, 80)
        engines.append(e)
    big_t = T0 + 118.4
    e2 = engines[2]
    e2.reqs = [r for r in e2.reqs if not (big_t - 1 < r.t_arr < big_t + 1)]
    e2.reqs.append(Req(rid, big_t, 101377, 90112, 800, 32768, "stop", 2)); rid += 1
    for e in engines:
        e.run(T0 - 900, start + (n - 1) * iv + 1)
    model = "MiniMax-M2.5"
    fams = gen.template("b-agent-header-drift-noprompts")
    cc = cc_labels("b-agent-header-drift-noprompts", num_gpu_blocks=num_blocks, num_gpu_blocks_override=13,
                   block_size=8192, user_specified_block_size="True", gpu_memory_utilization="0.9")
    for k in [k for k in cc if k.startswith("kv_cache_size_tokens") or k.startswith("kv_cache_max_concurrency")]:
        cc.pop(k)
    pid = 1
    logs = [
        (T0 - 3000, f"(APIServer pid={pid}) INFO {gen.ts(T0-3000)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.22.0"),
        (T0 - 2999, f"(APIServer pid={pid}) INFO {gen.ts(T0-2999)} [utils.py:233] non-default args: {{'model_tag': '/models/MiniMax-M2.5', 'model': '/models/MiniMax-M2.5', 'served_model_name': ['MiniMax-M2.5'], 'max_model_len': 106496, 'data_parallel_size': 4, 'enable_expert_parallel': True, 'block_size': 8192, 'num_gpu_blocks_override': 13, 'max_num_seqs': 2}}"),
    ]
    for k in range(4):
        logs.append((T0 - 2500 + k * 0.01, f"(EngineCore_DP{k} pid={400 + k}) INFO {gen.ts(T0-2500)} [kv_cache_utils.py:1733] GPU KV cache size: 106,496 tokens"))
        logs.append((T0 - 2500 + k * 0.01 + 0.001, f"(EngineCore_DP{k} pid={400 + k}) INFO {gen.ts(T0-2500)} [kv_cache_utils.py:1734] Maximum concurrency for 106,496 tokens per request: 1.00x"))
    logs.append((T0 - 2400, f"(APIServer pid={pid}) INFO {gen.ts(T0-2400)} [api_server.py:588] Starting vLLM server on http://0.0.0.0:8000"))
    logs += gen.stats_lines(engines, start - 10, start + (n - 1) * iv, pid, "loggers.py:259", num_blocks)
    for e in engines:
        logs += [(r.t_arr + 0.001, f'(APIServer pid={pid}) INFO:     10.40.2.{20 + e.idx}:{50000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
                 for r in e.reqs if start - 10 <= r.t_arr <= start + (n - 1) * iv and r.t_end is not None]
    ea = {"argv": ["vllm", "serve", "/models/MiniMax-M2.5", "--served-model-name", "MiniMax-M2.5", "--data-parallel-size", "4",
                   "--enable-expert-parallel", "--num-gpu-blocks-override", "13", "--block-size", "8192",
                   "--max-model-len", "106496", "--max-num-seqs", "2"],
          "args": {"data-parallel-size": 4, "enable-expert-parallel": True, "num-gpu-blocks-override": 13,
                   "block-size": 8192, "max-model-len": 106496, "max-num-seqs": 2}}
    gen.write(CASES / cid / "bundle", engines=engines, fams=fams, model=model, cc=cc, num_blocks=num_blocks, start=start,
              n=n, interval=iv, server=gen.server_json("0.22.0", model, "/models/MiniMax-M2.5", 106496, int(T0 - 2400)),
              engine_args=ea, model_config=None, gpu=[], logs=logs, endpoint="http://minimax-rbln:8000",
              notes="vllm-rbln 0.11.1a5.dev12+g1e49543d2 on Rebellions NPUs (no NVML). Coding-agent sessions stop answering.")
    for e in engines:
        print(cid, e.idx, "done", sum(1 for r in e.reqs if r.t_end and r.t_end >= start), "final", e.steps[-1][1:])


if __name__ == "__main__":
    which = sys.argv[1:] or ["1", "2", "3"]
    if "1" in which: qwen25_a10g()
    if "2" in which: llama32_single()
    if "3" in which: minimax_rbln()
