"""Build the zl-* case bundles: python cases/_tools/zl/cases.py  (from the worktree root).

Each case is one simulated request list (gen.simulate); metrics, stats log lines and the access
log are all computed from it (gen.scrape / gen.stats_lines / gen.access_lines).
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1 << 30


def iter_fn_factory(mnbt: int, local_prefill: bool = True):
    """iteration_tokens_total observations: prefill chunks of at most mnbt, one per decode step (batch size)."""
    def fn(c: Case, t: float) -> list:
        obs = []
        for r in c.reqs:
            if r.t_first <= t:
                todo = (r.prompt - r.cached) if local_prefill else 1
                while todo > 0:
                    obs.append(min(mnbt, todo)); todo -= mnbt
        # decode steps: one observation per step of the engine, value = sequences running then
        steps = {}
        for r in c.reqs:
            n = r.steps_by(t)
            for k in range(0, n, 25):  # sample every 25th step of each request to keep counts realistic-ish
                key = round(r.t_first + k * r.step_s, 1)
                steps[key] = steps.get(key, 0) + 1
        for key, v in steps.items():
            obs.extend([v] * 25)
        return obs
    return fn


def gpu_rec(t, devs):
    return {"t": round(t, 3), "devices": devs}


# ---------------------------------------------------------------- zl-kv-prealloc-62gib-pool-idle (dev-9)
def case_prealloc():
    cid = "zl-kv-prealloc-62gib-pool-idle"
    rnd = random.Random(43400)
    start = 1779613200.0  # 2026-05-24 09:00 UTC
    tm = "w-gemma4-upgrade-10x-pool-usage-drop"  # vLLM 0.21.0 bundle: families, HELP, buckets
    bpt = 36 * 2 * 2 * 128 * 2  # Qwen2.5-3B bf16: 36,864 bytes per token
    kv_bytes = int(62.18 * GiB)
    blocks = kv_bytes // (bpt * 16)
    pool = blocks * 16
    c = Case(cid=cid, version="0.21.0", v0=False, model_name="Qwen/Qwen2.5-3B-Instruct", model_root="Qwen/Qwen2.5-3B-Instruct",
             max_model_len=32768, start=start, n_scrapes=61, interval=10.0,
             labels_cc=gen.tmpl_cc(tm, num_gpu_blocks=blocks, kv_cache_size_tokens=pool, gpu_memory_utilization=0.86,
                                   sliding_window="None", mamba_block_size="None", mamba_cache_mode="none"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=tm)
    reqs, t, i = [], start - 400, 0
    while t < start + 600:
        p = rnd.randint(950, 1250); g = rnd.randint(250, 390)
        reqs.append(Req(i, t, p, 0, g, 1024)); i += 1
        t += rnd.uniform(14, 26)
    gen.simulate(c, reqs, step_fn=lambda n: 0.0062, prefill_fn=lambda r, n: 0.028 + r.prompt * 0.000012)
    c.iter_fn = iter_fn_factory(8192)
    used = 70780 * (1 << 20)
    devs = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": used,
             "processes": [{"pid": 211, "name": "VLLM::EngineCore", "used_memory": used - 421 * (1 << 20)}]}]
    gpu = [gpu_rec(start + k * 10 + 0.4, devs) for k in range(c.n_scrapes)]
    ts = gen.ts
    t0 = start - 1200
    P = "(APIServer pid=1) "
    E = "(EngineCore pid=211) "
    logs = [
        (t0, f"{P}INFO {ts(t0)} [utils.py:299] vLLM API server version 0.21.0"),
        (t0 + .1, f"{P}INFO {ts(t0)} [utils.py:233] non-default args: {{'model_tag': 'Qwen/Qwen2.5-3B-Instruct', 'host': '0.0.0.0', 'model': 'Qwen/Qwen2.5-3B-Instruct', 'gpu_memory_utilization': 0.86}}"),
        (t0 + 5, f"{P}INFO {ts(t0 + 5)} [model.py:552] Resolved architecture: Qwen2ForCausalLM"),
        (t0 + 5.1, f"{P}INFO {ts(t0 + 5)} [model.py:1677] Using max model len 32768"),
        (t0 + 5.2, f"{P}INFO {ts(t0 + 5)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (t0 + 12, f"{E}INFO {ts(t0 + 12)} [core.py:101] Initializing a V1 LLM engine (v0.21.0) with config: model='Qwen/Qwen2.5-3B-Instruct', tokenizer='Qwen/Qwen2.5-3B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=Qwen/Qwen2.5-3B-Instruct, enable_prefix_caching=True, enable_chunked_prefill=True"),
        (t0 + 30, f"{E}INFO {ts(t0 + 30)} [gpu_model_runner.py:4380] Model loading took 5.79 GiB memory and 14.210 seconds"),
        (t0 + 48, f"{E}INFO {ts(t0 + 48)} [gpu_worker.py:436] Available KV cache memory: 62.18 GiB"),
        (t0 + 48.1, f"{E}INFO {ts(t0 + 48)} [kv_cache_utils.py:1733] GPU KV cache size: {pool:,} tokens"),
        (t0 + 48.2, f"{E}INFO {ts(t0 + 48)} [kv_cache_utils.py:1734] Maximum concurrency for 32,768 tokens per request: {pool / 32768:.2f}x"),
        (t0 + 66, f"{E}INFO {ts(t0 + 66)} [gpu_model_runner.py:5102] Graph capturing finished in 17 secs, took 0.29 GiB"),
        (t0 + 67, f"{E}INFO {ts(t0 + 67)} [core.py:274] init engine (profile, create kv cache, warmup model) took 36.40 seconds"),
        (t0 + 70, f"{P}INFO {ts(t0 + 70)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines(c, start - 10, start + 600, 1, "loggers.py:271")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    logs = [x for x in logs if x[0] <= start + 600]
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 11008,
          "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 16,
          "num_hidden_layers": 36, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.21.0", "Qwen/Qwen2.5-3B-Instruct", "Qwen/Qwen2.5-3B-Instruct", 32768, int(start) - 1500),
              engine_args={"argv": ["vllm", "serve", "Qwen/Qwen2.5-3B-Instruct", "--host", "0.0.0.0", "--gpu-memory-utilization", "0.86"],
                           "args": {"host": "0.0.0.0", "gpu-memory-utilization": 0.86}},
              model_config=mc, gpu=gpu, logs=logs, endpoint="http://localhost:8000",
              notes="Single A100-80GB, one user sending one request at a time. Operator's question: nvidia-smi shows ~69 GB in use right after start-up, "
                    "62.18 GiB of it the KV cache pool, while one request needs only ~50 MiB of KV cache; is most of it preallocated but idle? "
                    "/metrics every 10 s for 10 minutes, nvidia-smi samples and the server log.")
    return c


# ---------------------------------------------------------------- zl-bench-aiohttp-50k-minimax (holdout-9)
def case_bench():
    cid = "zl-bench-aiohttp-50k-minimax"
    rnd = random.Random(39963)
    start = 1776330000.0  # 2026-04-16 09:00 UTC
    tm = "b-hybrid-qwen35-block528"  # vLLM 0.19.1 bundle
    bpt_gpu = 62 * 2 * 1 * 128 * 2  # TP8: 1 of 8 KV heads per GPU, bf16
    blocks = 111824
    pool = blocks * 16
    kv_gib = pool * bpt_gpu / GiB
    model = "MiniMaxAI/MiniMax-M2.5"
    c = Case(cid=cid, version="0.19.1", v0=False, model_name=model, model_root=model, max_model_len=196608,
             start=start, n_scrapes=61, interval=10.0,
             labels_cc=gen.tmpl_cc(tm, block_size=16, num_gpu_blocks=blocks, mamba_block_size="None", mamba_cache_mode="none",
                                   mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto"),
             pool_tokens=pool, block_size=16, max_num_seqs=1024, tmpl=tm)
    reqs, t, i = [], start - 120, 0
    while t < start + 600:
        reqs.append(Req(i, t, 50000 + rnd.randint(-40, 40), 0, 256, 256, reason="length")); i += 1
        t += rnd.uniform(3.4, 8.4)  # a new request only when the client has drained an earlier one
    gen.simulate(c, reqs, step_fn=lambda n: 0.0088 + 0.0004 * (n - 1),
                 prefill_fn=lambda r, n: 1.12 + rnd.uniform(0.0, 0.25) + (0.35 if n > 1 else 0.0))
    c.iter_fn = iter_fn_factory(8192)
    # server-side TTFT stays under 2.5 s by construction; check
    assert max(r.t_first - r.t_arr for r in reqs) < 2.5, max(r.t_first - r.t_arr for r in reqs)
    total = 102642515968  # RTX PRO 6000 Blackwell 97,887 MiB
    used = int(0.90 * total) + 700 * (1 << 20)
    devs = [{"index": k, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "memory_total": total, "memory_used": used,
             "processes": [{"pid": 5120 + k, "name": f"VLLM::Worker_TP{k}_EP{k}", "used_memory": used - 520 * (1 << 20)}]} for k in range(8)]
    gpu = [gpu_rec(start + k * 10 + 0.3, devs) for k in range(c.n_scrapes)]
    ts = gen.ts
    t0 = start - 1500
    P = "(APIServer pid=5001) "
    E = "(EngineCore_DP0 pid=5090) "
    logs = [
        (t0, f"INFO {ts(t0)} [__init__.py:216] Automatically detected platform cuda."),
        (t0 + 2, f"{P}INFO {ts(t0 + 2)} [api_server.py:1947] vLLM API server version 0.19.1"),
        (t0 + 2.1, f"{P}INFO {ts(t0 + 2)} [utils.py:299] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'trust_remote_code': True, 'max_model_len': 196608, 'tensor_parallel_size': 8, 'enable_expert_parallel': True}}"),
        (t0 + 9, f"{P}INFO {ts(t0 + 9)} [model.py:552] Resolved architecture: MiniMaxM2ForCausalLM"),
        (t0 + 9.1, f"{P}INFO {ts(t0 + 9)} [model.py:1677] Using max model len 196608"),
        (t0 + 10, f"{P}INFO {ts(t0 + 10)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (t0 + 18, f"{E}INFO {ts(t0 + 18)} [core.py:101] Initializing a V1 LLM engine (v0.19.1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=196608, download_dir=None, load_format=auto, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True"),
        (t0 + 30, f"(Worker_TP0_EP0 pid=5120) INFO {ts(t0 + 30)} [gpu_model_runner.py:3489] Starting to load model {model}..."),
        (t0 + 210, f"(Worker_TP0_EP0 pid=5120) INFO {ts(t0 + 210)} [gpu_model_runner.py:3582] Model loading took 28.81 GiB and 178.410000 seconds"),
        (t0 + 260, f"(Worker_TP0_EP0 pid=5120) INFO {ts(t0 + 260)} [gpu_worker.py:379] Available KV cache memory: {kv_gib:.2f} GiB"),
        (t0 + 260.2, f"{E}INFO {ts(t0 + 260)} [kv_cache_utils.py:1313] GPU KV cache size: {pool:,} tokens, Maximum concurrency for 196,608 tokens per request: {pool / 196608:.2f}x"),
        (t0 + 300, f"(Worker_TP0_EP0 pid=5120) INFO {ts(t0 + 300)} [gpu_model_runner.py:4512] Graph capturing finished in 38 secs, took 1.12 GiB"),
        (t0 + 301, f"{E}INFO {ts(t0 + 301)} [core.py:262] init engine (profile, create kv cache, warmup model) took 91.60 seconds"),
        (t0 + 303, f"{P}INFO {ts(t0 + 303)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
        (t0 + 304, f"{P}INFO {ts(t0 + 304)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines(c, start - 10, start + 600, 5001, "loggers.py:257")
    logs += gen.access_lines(c, 5001, "/v1/completions")
    logs = [x for x in logs if x[0] <= start + 600]
    mc = {"architectures": ["MiniMaxM2ForCausalLM"], "auto_map": {"AutoConfig": "configuration_minimax_m2.MiniMaxM2Config",
          "AutoModelForCausalLM": "modeling_minimax_m2.MiniMaxM2ForCausalLM"}, "attention_dropout": 0.0, "bos_token_id": None,
          "eos_token_id": None, "head_dim": 128, "hidden_act": "silu", "hidden_size": 3072, "intermediate_size": 1536,
          "max_position_embeddings": 196608, "model_type": "minimax_m2", "num_attention_heads": 48, "num_experts_per_tok": 8,
          "num_hidden_layers": 62, "num_key_value_heads": 8, "num_local_experts": 256, "rms_norm_eps": 1e-06,
          "rope_theta": 5000000, "rotary_dim": 64, "scoring_func": "sigmoid", "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "use_qk_norm": True, "vocab_size": 200064,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "float8_e4m3fn", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.19.1", model, model, 196608, int(start) - 1200),
              engine_args={"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--trust-remote-code", "--max-model-len", "196608",
                                    "--tensor-parallel-size", "8", "--enable-expert-parallel"],
                           "args": {"host": "0.0.0.0", "trust-remote-code": True, "max-model-len": 196608,
                                    "tensor-parallel-size": 8, "enable-expert-parallel": True}},
              model_config=mc, gpu=gpu, logs=logs, endpoint="http://localhost:8000",
              notes="MiniMax-M2.5 FP8 on 8x RTX PRO 6000 Blackwell, TP8 + expert parallel. Captured while `vllm bench serve` ran the "
                    "50K-input / 256-output random workload (ignore_eos, multi-user, --request-rate inf). The bench report says "
                    "44 tok/s output and mean TTFT 134,173 ms; another load tool against the same server at 50K reported 486 tok/s "
                    "and TTFT 1,331 ms. /metrics every 10 s for 10 minutes, nvidia-smi samples and the server log.")
    man = json.loads((ROOT / "cases" / cid / "bundle" / "manifest.json").read_text())
    man["complaint"] = "high-ttft"
    (ROOT / "cases" / cid / "bundle" / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    return c


# ---------------------------------------------------------------- zl-pd-1p1d-ttft-metrics-disagree (holdout-9)
def case_pd():
    cid = "zl-pd-1p1d-ttft-metrics-disagree"
    rnd = random.Random(22454)
    start = 1754640000.0  # 2025-08-08 08:00 UTC
    tm = "q-nixl-1p1d-decode-reprefills"  # vLLM 0.10.0 bundle
    bpt = 28 * 2 * 4 * 128 * 2  # 57,344 bytes per token
    blocks = int(55.20 * GiB) // (bpt * 16)
    pool = blocks * 16
    model = "/data/models/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"
    c = Case(cid=cid, version="0.10.0", v0=False, model_name=model, model_root=model, max_model_len=131072,
             start=start, n_scrapes=37, interval=10.0,
             labels_cc=gen.tmpl_cc(tm, num_gpu_blocks=blocks), pool_tokens=pool, block_size=16, max_num_seqs=1024, tmpl=tm)
    reqs, t = [], start + 8.0
    for i in range(501):
        reqs.append(Req(i, t, 5000, 0, 2000, 2000, reason="length"))
        t += rnd.expovariate(1.5)
    gen.simulate(c, reqs, step_fn=lambda n: 0.010 + 0.0002 * n,
                 prefill_fn=lambda r, n: 0.09 + rnd.uniform(0.0, 0.12) + 0.0006 * n)
    c.iter_fn = iter_fn_factory(8192, local_prefill=False)
    total = 85520809984  # H800 80GB
    used = int(0.9 * total) + 612 * (1 << 20)
    devs = [{"index": 0, "name": "NVIDIA H800", "memory_total": total, "memory_used": used,
             "processes": [{"pid": 40213, "name": "VLLM::EngineCore", "used_memory": used - 498 * (1 << 20)}]}]
    gpu = [gpu_rec(start + k * 10 + 0.2, devs) for k in range(c.n_scrapes)]
    ts = gen.ts
    t0 = start - 900
    eid = "a3f9c2d1-6b7e-4f15-8e0a-91c4d2b7e6f3"
    logs = [
        (t0, f"INFO {ts(t0)} [cli_args.py:261] non-default args: {{'port': 8200, 'model': '{model}', 'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', engine_id='{eid}', kv_buffer_device='cuda', kv_buffer_size=1000000000.0, kv_role='kv_both', kv_rank=None, kv_parallel_size=1, kv_ip='127.0.0.1', kv_port=14579, kv_connector_extra_config={{}}, kv_connector_module_path=None)}}"),
        (t0 + 10, f"INFO {ts(t0 + 10)} [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='{model}', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True"),
        (t0 + 11, f"INFO {ts(t0 + 11)} [factory.py:74] Creating v1 connector with name: NixlConnector and engine_id: {eid}"),
        (t0 + 12, f"INFO {ts(t0 + 12)} [nixl_connector.py:440] Initializing NIXL wrapper"),
        (t0 + 13, f"INFO {ts(t0 + 13)} [nixl_connector.py:441] Initializing NIXL worker {eid}"),
        (t0 + 40, f"INFO {ts(t0 + 40)} [gpu_model_runner.py:1892] Model loading took 14.27 GiB and 21.84 seconds"),
        (t0 + 60, f"INFO {ts(t0 + 60)} [gpu_worker.py:255] Available KV cache memory: 55.20 GiB"),
        (t0 + 60.1, f"INFO {ts(t0 + 60)} [kv_cache_utils.py:833] GPU KV cache size: {pool:,} tokens"),
        (t0 + 60.2, f"INFO {ts(t0 + 60)} [kv_cache_utils.py:837] Maximum concurrency for 131,072 tokens per request: {pool / 131072:.2f}x"),
        (t0 + 90, f"INFO {ts(t0 + 90)} [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8200"),
    ]
    logs += gen.stats_lines(c, start, start + 360, 0, "loggers.py:118", prefix=False, mm_line=False)
    logs += [(r.t_arr + 0.002, f'INFO:     127.0.0.1:{50000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    logs = [x for x in logs if x[0] <= start + 360]
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
          "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
          "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
          "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 10000,
          "sliding_window": 4096, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.44.0",
          "use_cache": True, "use_mrope": False, "use_sliding_window": False, "vocab_size": 152064}
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.10.0", model, model, 131072, int(start) - 800),
              engine_args={"argv": ["vllm", "serve", model, "--port", "8200", "--kv-transfer-config",
                                    "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}"],
                           "args": {"port": 8200, "kv-transfer-config": "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}"}},
              model_config=mc, gpu=gpu, logs=logs, endpoint="http://0.0.0.0:8200",
              notes="Decode instance (port 8200) of a 1P1D NixlConnector deployment of DeepSeek-R1-Distill-Qwen-7B (prefill instance on port 8100, "
                    "one GPU each, requests routed by the disagg proxy). vllm bench serve: random, isl=5000, osl=2000, qps=1.5, 501 requests; the "
                    "client reports an unusually long TTFT (mean ~4.8 s). Prefill instance /metrics at the end of the run: "
                    "vllm:time_to_first_token_seconds_count 501.0, vllm:time_to_first_token_seconds_sum 245.34050130844116, "
                    "vllm:request_queue_time_seconds_count 501.0. /metrics of the decode instance every 10 s for 6 minutes and its log.")
    man = json.loads((ROOT / "cases" / cid / "bundle" / "manifest.json").read_text())
    man["complaint"] = "high-ttft"
    (ROOT / "cases" / cid / "bundle" / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    return c


if __name__ == "__main__":
    for f in (case_prealloc, case_bench, case_pd):
        c = f()
        R = c.reqs
        ttft = [r.t_first - r.t_arr for r in R]
        print(c.cid, "reqs", len(R), "pool", c.pool_tokens, "ttft mean %.3f max %.3f" % (sum(ttft) / len(ttft), max(ttft)),
              "step", round(sum(r.step_s for r in R) / len(R), 4))
