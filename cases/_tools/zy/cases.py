"""Writer zy's cases: builds cases/zy-*/bundle with gen.py (copied from cases/_tools/zx/gen.py).

Run from the worktree root:  /work/main/.venv/bin/python cases/_tools/zy/cases.py
Every number that is not quoted from the source is listed under `assumed:` in the case.yaml.
Families / HELP / buckets come from the last scrape of an existing case bundle of a nearby release;
vllm:lora_requests_info is appended in the form of cases/b-lora-tenant-adapters (0.11.0).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

_SCRAPE = gen.scrape

GiB = 1024 ** 3
V0110 = "b-lora-tenant-adapters"                  # vLLM 0.11.0 (LoRA enabled)
V0140 = "c-compute-queueing-prefill-saturation"   # vLLM 0.14.0
V0251 = "c-nvfp4-kv-sm120-vscale-garbled"         # vLLM 0.25.1
V0073 = "c-v0-recompute-warnings-limo32b"         # vLLM 0.7.3 (V0)
ts = gen.ts


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def lora_scrape(c: Case, adapter: str, max_lora: int):
    """Wrap gen.scrape: append vllm:lora_requests_info (value = time of the stat, as vLLM sets it)."""
    def f(t: float) -> str:
        txt = _SCRAPE(c, t, c.start - 3600)
        arrived = [r for r in c.reqs if r.t_arr <= t]
        run = any(r.t_sched <= t < r.t_end for r in arrived) and adapter
        wait = any(t < r.t_sched for r in arrived) and adapter
        lab = {"max_lora": str(max_lora), "running_lora_adapters": adapter if run else "",
               "waiting_lora_adapters": adapter if wait else ""}
        return txt + ("# HELP vllm:lora_requests_info Running stats on lora requests.\n# TYPE vllm:lora_requests_info gauge\n"
                      f"vllm:lora_requests_info{{{gen._lab(lab)}}} {gen._num(round(t, 3))}\n")
    return f


def write(c: Case, out: Path, scrape_fn, **kw) -> None:
    gen.scrape = lambda cc, t, created: scrape_fn(t)
    try:
        gen.write(c, out, **kw)
    finally:
        gen.scrape = _SCRAPE


def gpu(name: str, total: int, pid: int, used_gib: float, pname: str = "VLLM::EngineCore") -> dict:
    u = int(used_gib * GiB)
    return {"index": 0, "name": name, "memory_total": total, "memory_used": u,
            "processes": [{"pid": pid, "name": pname, "used_memory": u - 510 * 1024 ** 2}]}


def metrics_access(c: Case, api: str) -> list:
    return [(c.start + k * c.interval + 0.004, f'{api} INFO:     10.0.3.7:51544 - "GET /metrics HTTP/1.1" 200 OK') for k in range(c.n_scrapes)]


def kv_lines(pid: str, t: float, avail: float, tokens: int, mml: int) -> list:
    return [(t, f"{pid} INFO {ts(t)} [gpu_worker.py:298] Available KV cache memory: {avail:.2f} GiB"),
            (t + 0.01, f"{pid} INFO {ts(t)} [kv_cache_utils.py:1087] GPU KV cache size: {tokens:,} tokens"),
            (t + 0.02, f"{pid} INFO {ts(t)} [kv_cache_utils.py:1091] Maximum concurrency for {mml:,} tokens per request: {tokens / mml:.2f}x")]


# ------------------------------------------------------------------------------------------
# 1. zy-h20-qwen3moe-lora-r64-burst-ttft (0.11.0, H20, burst of 100 x 2048/1024 through a rank-64 LoRA)
# ------------------------------------------------------------------------------------------
def case_h20() -> None:
    cid = "zy-h20-qwen3moe-lora-r64-burst-ttft"
    rnd = random.Random(27402)
    start = utc(2025, 10, 23, 9, 0, 0)
    model, adapter, mml = "Qwen/Qwen3-30B-A3B", "test_lora_model", 40960
    bpt = 48 * 4 * 128 * 2 * 2                      # 98,304 bytes a token
    avail = 29.11
    blocks = int(avail * GiB / (16 * bpt))
    pool = blocks * 16
    labels = gen.tmpl_cc(V0110, num_gpu_blocks=str(blocks), enable_prefix_caching="False")
    c = Case(cid=cid, version="0.11.0", v0=False, model_name=adapter, model_root=model, max_model_len=mml, start=start,
             n_scrapes=25, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=128,
             tmpl=V0110, mm_hits=False)
    t0 = start + 22.3
    reqs = []
    for i in range(100):
        r = Req(rid=i, t_arr=t0 + i * 0.0004, prompt=2048, cached=0, gen=1024, max_tokens=1024, reason="length")
        r.t_first = t0 + 0.35 + 16.3 * i / 99 + rnd.uniform(-0.05, 0.05)
        r.t_sched = max(r.t_arr + 0.002, r.t_first - 0.66)
        r.step_s = 0.0560
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r)
    c.reqs = reqs
    api, eng = "(APIServer pid=3317)", "(EngineCore_DP0 pid=3521)"
    ls = start - 620
    L = [(ls - 2, f"INFO {ts(ls - 2)} [__init__.py:216] Automatically detected platform cuda."),
         (ls, f"{api} INFO {ts(ls)} [api_server.py:1839] vLLM API server version 0.11.0"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'lora_modules': [LoRAModulePath(name='{adapter}', path='/path/to/loramodel', base_model_name=None)], "
                    f"'model': '{model}', 'enable_prefix_caching': False, 'max_num_seqs': 128, 'enable_lora': True, 'max_lora_rank': 64}}"),
         (ls + 5, f"{api} INFO {ts(ls + 5)} [model.py:547] Resolved architecture: Qwen3MoeForCausalLM"),
         (ls + 5.1, f"{api} INFO {ts(ls + 5)} [model.py:1510] Using max model len {mml}"),
         (ls + 5.2, f"{api} INFO {ts(ls + 5)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 12, f"{eng} INFO {ts(ls + 12)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', "
                   f"dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, kv_cache_dtype=auto, enable_prefix_caching=False, enable_chunked_prefill=True"),
         (ls + 95, f"{eng} INFO {ts(ls + 95)} [gpu_model_runner.py:2602] Model loading took 58.42 GiB and 79.31 seconds"),
         ]
    L += kv_lines(eng, ls + 160, avail, pool, mml)
    L += [(ls + 201, f"{eng} INFO {ts(ls + 201)} [gpu_model_runner.py:3480] Graph capturing finished in 24 secs, took 1.12 GiB"),
          (ls + 202, f"{eng} INFO {ts(ls + 202)} [core.py:210] init engine (profile, create kv cache, warmup model) took 104.77 seconds"),
          (ls + 204, f"{api} INFO {ts(ls + 204)} [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (ls + 205, f"{api} INFO {ts(ls + 205)} [serving_models.py:173] Loaded new LoRA adapter: name '{adapter}', path '/path/to/loramodel'"),
          (ls + 206, f"{api} INFO {ts(ls + 206)} [api_server.py:1634] Supported_tasks: ['generate']"),
          (ls + 207, f"{api} INFO {ts(ls + 207)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 10, start + 120, 3317, "loggers.py:123")
    L += gen.access_lines(c, 3317, "/v1/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "-tp", "1", "-dp", "1", "--max-num-seqs", "128", "--enable-lora", "--max-lora-rank=64",
                      "--no-enable-prefix-caching", "--lora-modules", f"{adapter}=/path/to/loramodel"],
             "args": {"model": model, "tensor-parallel-size": 1, "data-parallel-size": 1, "max-num-seqs": 128, "enable-lora": True,
                      "max-lora-rank": 64, "enable-prefix-caching": False, "lora-modules": f"{adapter}=/path/to/loramodel"}}
    mc = {"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
          "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048,
          "initializer_range": 0.02, "intermediate_size": 6144, "max_position_embeddings": 40960, "max_window_layers": 48,
          "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
          "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
          "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
          "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": None, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
          "vocab_size": 151936}
    used = 0.9 * 91.15 + 0.62
    server = gen.server_json(c.version, model, model, mml, int(ls))
    server["models"]["data"].append({**server["models"]["data"][0], "id": adapter, "root": "/path/to/loramodel", "parent": model})
    write(c, ROOT / "cases" / cid / "bundle", lora_scrape(c, adapter, 1), server=server, engine_args=eargs, model_config=mc,
          gpu=gen.gpu_samples(c, [gpu("NVIDIA H20", 97871740928, 3521, used)]), logs=L,
          notes="Captured during one `vllm bench serve` run against the LoRA adapter (100 random prompts, 2048 in / 1024 out, request rate inf).",
          endpoint="http://h20-node-1:8000")


# ------------------------------------------------------------------------------------------
# 2. zy-qwen25-7b-oproj-lora-rate10-ttft (0.25.1, H100 assumed, 100 prompts at 10 req/s through an o_proj LoRA)
# ------------------------------------------------------------------------------------------
def case_qwen7b() -> None:
    cid = "zy-qwen25-7b-oproj-lora-rate10-ttft"
    rnd = random.Random(48887)
    start = utc(2026, 8, 25, 13, 30, 0)
    model, adapter, mml = "Qwen/Qwen2.5-7B-Instruct", "o_porj_only", 32768
    bpt = 28 * 4 * 128 * 2 * 2                      # 57,344 bytes a token
    avail = 55.04
    blocks = int(avail * GiB / (16 * bpt))
    pool = blocks * 16
    labels = gen.tmpl_cc(V0251, num_gpu_blocks=str(blocks), enable_prefix_caching="False", block_size="16",
                         gpu_memory_utilization="0.9", cache_dtype="auto", mamba_block_size="None", mamba_cache_mode="none",
                         mamba_ssm_cache_dtype="auto", kv_cache_size_tokens=str(pool), kv_cache_max_concurrency=f"{pool / mml:.2f}")
    c = Case(cid=cid, version="0.25.1", v0=False, model_name=adapter, model_root=model, max_model_len=mml, start=start,
             n_scrapes=25, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=1024,
             tmpl=V0251, mm_hits=False)
    t0 = start + 31.2
    reqs, t = [], t0
    for i in range(100):
        r = Req(rid=i, t_arr=t, prompt=2048, cached=0, gen=256, max_tokens=256, reason="length")
        reqs.append(r)
        t += rnd.expovariate(10.0)
    span = reqs[-1].t_arr - t0
    end0 = t0 + 28.9
    for i, r in enumerate(reqs):
        ttft = 6.7 + rnd.uniform(-1.2, 1.2)
        r.t_first = r.t_arr + ttft
        r.t_sched = r.t_first - rnd.uniform(0.35, 0.6)
        r.t_end = end0 - 1.6 + 1.6 * (r.t_arr - t0) / span + rnd.uniform(-0.1, 0.1)
        r.step_s = (r.t_end - r.t_first) / r.steps()
    c.reqs = reqs
    api, eng = "(APIServer pid=1882)", "(EngineCore pid=2046)"
    ls = start - 540
    L = [(ls, f"{api} INFO {ts(ls)} [utils.py:302] vLLM server version 0.25.1, serving model {model}"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:238] non-default args: {{'model_tag': '{model}', 'lora_modules': [LoRAModulePath(name='{adapter}', path='/path/to/adapter', base_model_name=None)], "
                    f"'model': '{model}', 'enable_prefix_caching': False, 'enable_lora': True, 'max_lora_rank': 8}}"),
         (ls + 4, f"{api} INFO {ts(ls + 4)} [model.py:570] Resolved architecture: Qwen2ForCausalLM"),
         (ls + 4.1, f"{api} INFO {ts(ls + 4)} [model.py:1702] Using max model len {mml}"),
         (ls + 4.2, f"{api} INFO {ts(ls + 4)} [scheduler.py:238] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 9, f"{eng} INFO {ts(ls + 9)} [core.py:104] Initializing a V1 LLM engine (v0.25.1) with config: model='{model}', speculative_config=None, tokenizer='{model}', "
                  f"dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, kv_cache_dtype=auto, enable_prefix_caching=False, enable_chunked_prefill=True"),
         (ls + 40, f"{eng} INFO {ts(ls + 40)} [gpu_model_runner.py:4412] Model loading took 14.25 GiB memory and 21.63 seconds"),
         ]
    L += kv_lines(eng, ls + 75, avail, pool, mml)
    L += [(ls + 98, f"{eng} INFO {ts(ls + 98)} [core.py:281] init engine (profile, create kv cache, warmup model) took 52.18 seconds"),
          (ls + 100, f"{api} INFO {ts(ls + 100)} [serving_models.py:182] Loaded new LoRA adapter: name '{adapter}', path '/path/to/adapter'"),
          (ls + 101, f"{api} INFO {ts(ls + 101)} [api_server.py:603] Starting vLLM server on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 10, start + 120, 1882, "loggers.py:259")
    L += gen.access_lines(c, 1882, "/v1/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "--enable-lora", "--max-lora-rank", "8", "--lora-modules", f"{adapter}=/path/to/adapter",
                      "--no-enable-prefix-caching"],
             "args": {"model": model, "enable-lora": True, "max-lora-rank": 8, "lora-modules": f"{adapter}=/path/to/adapter",
                      "enable-prefix-caching": False}}
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
          "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
          "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    used = 0.9 * 79.19 + 0.55
    server = gen.server_json(c.version, model, model, mml, int(ls))
    server["models"]["data"].append({**server["models"]["data"][0], "id": adapter, "root": "/path/to/adapter", "parent": model})
    write(c, ROOT / "cases" / cid / "bundle", lora_scrape(c, adapter, 1), server=server, engine_args=eargs, model_config=mc,
          gpu=gen.gpu_samples(c, [gpu("NVIDIA H100 80GB HBM3", 85520809984, 2046, used)]), logs=L,
          notes="Captured during `vllm bench serve` against the o_proj-only LoRA adapter: random 2048/256, request rate 10, 100 prompts.",
          endpoint="http://bench-h100:8000")


# ------------------------------------------------------------------------------------------
# 3. zy-b200-nemotron-nano-lora-base-healthy (0.14.0, B200, base-model requests at concurrency 64)
# ------------------------------------------------------------------------------------------
def case_b200() -> None:
    cid = "zy-b200-nemotron-nano-lora-base-healthy"
    rnd = random.Random(30802)
    start = utc(2026, 1, 7, 15, 20, 0)
    model, served, mml = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "my_model", 262144
    pool = 4_718_592
    labels = gen.tmpl_cc(V0140, num_gpu_blocks=str(pool // 1056), enable_prefix_caching="False", block_size="1056",
                         gpu_memory_utilization="0.9")
    c = Case(cid=cid, version="0.14.0", v0=False, model_name=served, model_root=model, max_model_len=mml, start=start,
             n_scrapes=13, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=1056, max_num_seqs=1024,
             tmpl=V0140, mm_hits=False)
    t0 = start + 12.4
    reqs = []
    for k in range(64):
        t = t0 + k * 0.002
        for j in range(4):
            r = Req(rid=0, t_arr=t, prompt=1000, cached=0, gen=1000, max_tokens=1000, reason="length")
            ttft = min(0.76, 0.2 + rnd.lognormvariate(math.log(0.12), 0.55)) if j else 0.2 + 0.56 * k / 63
            r.t_sched = t + min(0.02, ttft / 4)
            r.t_first = t + ttft
            r.step_s = rnd.uniform(0.0076, 0.0082)
            r.t_end = r.t_first + r.steps() * r.step_s
            reqs.append(r)
            t = r.t_end + 0.001
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i
    c.reqs = reqs
    api, eng = "(APIServer pid=4410)", "(EngineCore_DP0 pid=4602)"
    ls = start - 700
    L = [(ls, f"{api} INFO {ts(ls)} [api_server.py:1351] vLLM API server version 0.14.0"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'lora_modules': [LoRAModulePath(name='lora8', path='/models/lora8', base_model_name=None)], "
                    f"'trust_remote_code': True, 'model': '{model}', 'served_model_name': ['{served}'], 'enable_lora': True, 'max_lora_rank': 8}}"),
         (ls + 6, f"{api} INFO {ts(ls + 6)} [model.py:514] Resolved architecture: NemotronHForCausalLM"),
         (ls + 6.1, f"{api} INFO {ts(ls + 6)} [model.py:1661] Using max model len {mml}"),
         (ls + 6.2, f"{api} INFO {ts(ls + 6)} [scheduler.py:230] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 6.3, f"{api} INFO {ts(ls + 6)} [config.py:310] Hybrid or mamba-based model detected without support for prefix caching: disabling."),
         (ls + 14, f"{eng} INFO {ts(ls + 14)} [core.py:93] Initializing a V1 LLM engine (v0.14.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', "
                   f"dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, kv_cache_dtype=auto, enable_prefix_caching=False, enable_chunked_prefill=True"),
         (ls + 60, f"{eng} INFO {ts(ls + 60)} [gpu_model_runner.py:3650] Model loading took 31.42 GiB memory and 38.90 seconds"),
         ]
    L += kv_lines(eng, ls + 120, 128.37, pool, mml)
    L += [(ls + 151, f"{eng} INFO {ts(ls + 151)} [core.py:259] init engine (profile, create kv cache, warmup model) took 84.02 seconds"),
          (ls + 153, f"{api} INFO {ts(ls + 153)} [serving_models.py:178] Loaded new LoRA adapter: name 'lora8', path '/models/lora8'"),
          (ls + 154, f"{api} INFO {ts(ls + 154)} [api_server.py:1422] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 10, start + 60, 4410, "loggers.py:248")
    L += gen.access_lines(c, 4410, "/v1/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "--trust-remote-code", "--served-model-name", served, "--enable-lora", "--max-lora-rank", "8",
                      "--lora-modules", "lora8=/models/lora8"],
             "args": {"model": model, "trust-remote-code": True, "served-model-name": served, "enable-lora": True, "max-lora-rank": 8,
                      "lora-modules": "lora8=/models/lora8"}}
    used = 0.9 * 178.35 + 0.6
    server = gen.server_json(c.version, served, model, mml, int(ls))
    server["models"]["data"].append({**server["models"]["data"][0], "id": "lora8", "root": "/models/lora8", "parent": served})
    write(c, ROOT / "cases" / cid / "bundle", lora_scrape(c, "", 1), server=server, engine_args=eargs, model_config=None,
          gpu=gen.gpu_samples(c, [gpu("NVIDIA B200", 191503302656, 4602, used)]), logs=L,
          notes="Captured during the 'without LoRA' benchmark run: vllm bench serve, random 1000/1000, --max-concurrency 64, 256 prompts, after 30 warm-ups.",
          endpoint="http://b200-1:8000")


# ------------------------------------------------------------------------------------------
# 4. zy-a100-40g-llama2-lora-r64-itl (0.6.3.post1 V0, A100-40GB, every request through a rank-64 adapter)
# ------------------------------------------------------------------------------------------
def v0_stats(c: Case, t0: float, t1: float) -> list:
    L, t = [], t0 + 10
    pre = lambda x: [r for r in c.reqs if r.t_first <= x]
    while t <= t1:
        a, b = t - 10, t
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = [r for r in c.reqs if r.t_sched <= b < r.t_end]
        wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in run)
        L.append((b, f"INFO {ts(b)} metrics.py:349] Avg prompt throughput: {pt / 10:.1f} tokens/s, Avg generation throughput: {gt / 10:.1f} tokens/s, "
                     f"Running: {len(run)} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {100 * blocks * 16 / c.pool_tokens:.1f}%, CPU KV cache usage: 0.0%."))
        t += 10
    return L


def case_a100() -> None:
    cid = "zy-a100-40g-llama2-lora-r64-itl"
    rnd = random.Random(10062)
    start = utc(2024, 11, 5, 18, 0, 0)
    model, adapter, mml = "meta-llama/Llama-2-7b-hf", "moss-sft", 4096
    blocks = 2560
    pool = blocks * 16
    labels = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
              "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "512", "num_gpu_blocks": str(blocks),
              "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"}
    c = Case(cid=cid, version="0.6.3.post1", v0=True, model_name=adapter, model_root=model, max_model_len=mml, start=start,
             n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=256,
             tmpl=V0073, mm_hits=False)
    reqs, t = [], start - 120
    while t < start + 600:
        p = max(40, min(900, int(rnd.lognormvariate(math.log(170), 0.7))))
        g = max(20, min(500, int(rnd.lognormvariate(math.log(150), 0.75))))
        r = Req(rid=len(reqs), t_arr=t, prompt=p, cached=0, gen=g, max_tokens=g if g == 500 else 512,
                reason="length" if g == 500 else "stop")
        r.t_sched = t + rnd.uniform(0.005, 0.12)
        r.t_first = r.t_sched + 0.06 + p * 0.00018 + rnd.uniform(0.0, 0.05)
        r.step_s = rnd.uniform(0.052, 0.058)
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r)
        t += rnd.expovariate(3.0)
    c.reqs = reqs
    ls = start - 900
    L = [(ls, f"INFO {ts(ls)} api_server.py:528] vLLM API server version 0.6.3.post1"),
         (ls + 0.1, f"INFO {ts(ls)} api_server.py:529] args: Namespace(host=None, port=8000, lora_modules=[LoRAModulePath(name='{adapter}', path='/adapters/Llama-2-7b-qlora-moss-003-sft', base_model_name=None)], "
                    f"model='{model}', max_model_len={mml}, gpu_memory_utilization=0.9, enforce_eager=False, enable_lora=True, max_loras=1, max_lora_rank=64, max_cpu_loras=None, enable_prefix_caching=False, max_num_seqs=256)"),
         (ls + 5, f"INFO {ts(ls + 5)} llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', "
                  f"dtype=torch.float16, max_seq_len={mml}, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=False"),
         (ls + 40, f"INFO {ts(ls + 40)} model_runner.py:1067] Loading model weights took 12.5523 GB"),
         (ls + 52, f"INFO {ts(ls + 52)} gpu_executor.py:122] # GPU blocks: {blocks}, # CPU blocks: 512"),
         (ls + 52.1, f"INFO {ts(ls + 52)} gpu_executor.py:126] Maximum concurrency for {mml} tokens per request: {pool / mml:.2f}x"),
         (ls + 55, f"INFO {ts(ls + 55)} model_runner.py:1395] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
         (ls + 83, f"INFO {ts(ls + 83)} model_runner.py:1523] Graph capturing finished in 28 secs."),
         (ls + 85, f"INFO {ts(ls + 85)} launcher.py:19] Available routes are:"),
         (ls + 86, f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    L += v0_stats(c, start - 60, start + 600)
    L += [(r.t_arr + 0.002, f'INFO:     10.8.0.{11 + r.rid % 5}:{40000 + r.rid % 20000} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs if r.t_arr >= start - 60]
    L += [(start + k * c.interval + 0.004, 'INFO:     10.8.1.3:55012 - "GET /metrics HTTP/1.1" 200 OK') for k in range(c.n_scrapes)]
    eargs = {"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model, "--max-model-len", str(mml), "--enable-lora",
                      "--max-lora-rank", "64", "--lora-modules", f"{adapter}=/adapters/Llama-2-7b-qlora-moss-003-sft"],
             "args": {"model": model, "max-model-len": mml, "enable-lora": True, "max-lora-rank": 64,
                      "lora-modules": f"{adapter}=/adapters/Llama-2-7b-qlora-moss-003-sft"}}
    mc = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096,
          "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "llama",
          "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.31.0.dev0",
          "use_cache": True, "vocab_size": 32000}
    used = 0.9 * 39.39 + 0.43
    server = gen.server_json(c.version, model, model, mml, int(ls))
    server["models"]["data"].append({**server["models"]["data"][0], "id": adapter, "root": "/adapters/Llama-2-7b-qlora-moss-003-sft", "parent": model})
    write(c, ROOT / "cases" / cid / "bundle", lora_scrape(c, adapter, 1), server=server, engine_args=eargs, model_config=mc,
          gpu=gen.gpu_samples(c, [gpu("NVIDIA A100-SXM4-40GB", 42505273344, 1, used, "python3")]), logs=L,
          notes="Captured during the LoRA experiment (640 MB adapter, ShareGPT prompts) of a base-vs-LoRA comparison on GKE.",
          endpoint="http://vllm-lora.default.svc:8000")


if __name__ == "__main__":
    for fn in (case_h20, case_qwen7b, case_b200, case_a100):
        fn()
        print("built", fn.__name__)
