"""Writer zr's cases: builds cases/zr-*/bundle with gen.py (copied from cases/_tools/zj/gen.py).

Run from the worktree root:  /work/main/.venv/bin/python cases/_tools/zr/cases.py
Every number that is not quoted from the source is listed under `assumed:` in the case.yaml.
"""
from __future__ import annotations

import datetime as dt
import heapq
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1024 ** 3
V021 = "zl-kv-prealloc-62gib-pool-idle"      # vLLM 0.21.0 families (format example)
V011 = "d-kv-93pct-38-streams-healthy"       # vLLM 0.11.0 families
V019 = "o-qwen35-08b-mtp-slower-confounded"  # vLLM 0.19.0 families (with spec decode)


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def ts(t: float) -> str:
    return gen.ts(t)


def kv_lines(pid_eng: str, t: float, avail_gib: float, tokens: int, mml: int, ref_avail: str, ref_size: str, ref_conc: str) -> list[tuple[float, str]]:
    return [
        (t, f"{pid_eng} INFO {ts(t)} [{ref_avail}] Available KV cache memory: {avail_gib:.2f} GiB"),
        (t + 0.01, f"{pid_eng} INFO {ts(t)} [{ref_size}] GPU KV cache size: {tokens:,} tokens"),
        (t + 0.02, f"{pid_eng} INFO {ts(t)} [{ref_conc}] Maximum concurrency for {mml:,} tokens per request: {tokens / mml:.2f}x"),
    ]


def metrics_access(c: Case, api: str, ip: str = "10.0.3.7") -> list[tuple[float, str]]:
    return [(c.start + k * c.interval + 0.004, f'{api} INFO:     {ip}:51544 - "GET /metrics HTTP/1.1" 200 OK') for k in range(c.n_scrapes)]


# --------------------------------------------------------------------------------------------
# 1. zr-triton-fp8-kv-qscale-gsm8k-zero (vLLM 0.21 build, H100, lm_eval gsm8k at 128 concurrent)
# --------------------------------------------------------------------------------------------
LLAMA3_8B_FP8KV = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 8192,
    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None,
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.40.2", "use_cache": True, "vocab_size": 128256,
    "quantization_config": {"activation_scheme": "static", "ignored_layers": ["lm_head"],
                            "kv_cache_scheme": "static", "quant_method": "fp8"},
}


def case_triton() -> None:
    cid = "zr-triton-fp8-kv-qscale-gsm8k-zero"
    rnd = random.Random(4208)
    start = utc(2026, 5, 19, 9, 30, 0)
    mml = 8192
    bpt = 32 * 8 * 128 * 2 * 1                 # fp8 bytes per token
    avail = 61.30
    blocks = int(avail * GiB // (16 * bpt))     # 62,771
    pool = blocks * 16
    labels = gen.tmpl_cc(V021, cache_dtype="fp8", gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks),
                         kv_cache_size_tokens=str(pool))
    c = Case(cid=cid, version="0.21.1rc1.dev287+g5a0e4c1d2", v0=False, model_name="neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV",
             model_root="neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV", max_model_len=mml, start=start, n_scrapes=61,
             interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=1024, tmpl=V021, mm_hits=False)
    # closed loop of 128 client slots (lm_eval num_concurrent=128), 1,319 gsm8k requests
    t0 = start + 32.0
    slots = [(t0 + 0.002 * i, i) for i in range(128)]
    heapq.heapify(slots)
    reqs = []
    for rid in range(1319):
        t_free, s = heapq.heappop(slots)
        prompt = rnd.randint(780, 960)
        cached = 0 if rid < 128 else 720
        if rnd.random() < 0.97:
            g, reason = 256, "length"
        else:
            g, reason = rnd.randint(40, 250), "stop"
        r = Req(rid=rid, t_arr=t_free, prompt=prompt, cached=cached, gen=g, max_tokens=256, reason=reason)
        r.step_s = 0.034
        r.t_sched = r.t_arr + 0.003
        r.t_first = r.t_sched + (0.45 + rnd.random() * 0.5 if rid < 128 else 0.06 + rnd.random() * 0.08)
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r)
        heapq.heappush(slots, (r.t_end + 0.004 + rnd.random() * 0.01, s))
    c.reqs = reqs
    api, eng = "(APIServer pid=1)", "(EngineCore pid=214)"
    ls = start - 600
    L = [
        (ls, f"{api} INFO {ts(ls)} [utils.py:299] vLLM API server version {c.version}"),
        (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:233] non-default args: {{'model_tag': 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV', 'port': 8000, "
                    f"'model': 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV', 'enforce_eager': True, 'model_loader_extra_config': {{'enable_multithread_load': True}}, "
                    f"'kv_cache_dtype': 'fp8', 'attention_backend': 'TRITON_ATTN'}}"),
        (ls + 5, f"{api} INFO {ts(ls + 5)} [model.py:552] Resolved architecture: LlamaForCausalLM"),
        (ls + 5.1, f"{api} INFO {ts(ls + 5)} [model.py:1677] Using max model len {mml}"),
        (ls + 5.2, f"{api} INFO {ts(ls + 5)} [cache.py:213] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. "
                    "Meanwhile, it may cause accuracy drop without a proper scaling factor."),
        (ls + 5.3, f"{api} INFO {ts(ls + 5)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (ls + 12, f"{eng} INFO {ts(ls + 12)} [core.py:101] Initializing a V1 LLM engine ({c.version}) with config: model='neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV', "
                   "tokenizer='neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, quantization=fp8, "
                   "enforce_eager=True, kv_cache_dtype=fp8, device_config=cuda, seed=0, served_model_name=neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV, "
                   "enable_prefix_caching=True, enable_chunked_prefill=True"),
        (ls + 20, f"{eng} INFO {ts(ls + 20)} [gpu_model_runner.py:4380] Model loading took 8.49 GiB memory and 6.912 seconds"),
    ]
    L += kv_lines(eng, ls + 31, avail, pool, mml, "gpu_worker.py:436", "kv_cache_utils.py:1733", "kv_cache_utils.py:1734")
    L += [(ls + 33, f"{eng} INFO {ts(ls + 33)} [core.py:274] init engine (profile, create kv cache, warmup model) took 12.83 seconds"),
          (ls + 35, f"{api} INFO {ts(ls + 35)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 10, start + 300, 1, "loggers.py:271")
    L += gen.access_lines(c, 1, "/v1/completions")
    L = [(t, l.replace("INFO:     10.20.0.", "INFO:     127.0.0.")) for t, l in L]
    eargs = {"argv": ["vllm", "serve", "--model", "neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV", "--port", "8000", "--enforce-eager",
                      "--attention-backend", "triton_attn", "--kv-cache-dtype", "fp8", "--model-loader-extra-config",
                      '{"enable_multithread_load": true}'],
             "args": {"model": "neuralmagic/Meta-Llama-3-8B-Instruct-FP8-KV", "port": 8000, "enforce-eager": True,
                      "attention-backend": "triton_attn", "kv-cache-dtype": "fp8",
                      "model-loader-extra-config": '{"enable_multithread_load": true}'}}
    total = 85520809984
    used = int(0.9 * total) + 512 * 1024 ** 2
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": used,
            "processes": [{"pid": 214, "name": "VLLM::EngineCore", "used_memory": used - 600 * 1024 ** 2}]}]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json(c.version, c.model_name, c.model_root, mml, int(start - 600)), engine_args=eargs,
              model_config=LLAMA3_8B_FP8KV, gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Captured on the eval box during one lm_eval gsm8k run (local-completions, num_concurrent=128) against a fresh server.",
              endpoint="http://127.0.0.1:8000")


# --------------------------------------------------------------------------------------------
# 2. zr-gptoss20b-v011-repeat-kv-auto (vLLM 0.11.0rc2, A100 80GB PCIe, bf16 checkpoint)
# --------------------------------------------------------------------------------------------
def gptoss20b_config() -> dict:
    cfg = json.loads((ROOT / "cases" / "g-gpt-oss-120b-h100-negative-kv" / "bundle" / "model_config.json").read_text())
    cfg["num_hidden_layers"] = 24
    cfg["layer_types"] = ["sliding_attention", "full_attention"] * 12
    cfg["num_local_experts"] = 32
    cfg.pop("quantization_config", None)
    cfg["torch_dtype"] = "bfloat16"
    return cfg


def case_gptoss() -> None:
    cid = "zr-gptoss20b-v011-repeat-kv-auto"
    rnd = random.Random(27979)
    start = utc(2025, 11, 3, 6, 10, 0)
    mml = 131072
    page = 16 * 8 * 64 * 2 * 2                # bytes per block per layer
    avail = 32.44
    blocks = int(avail * GiB // (12 * page))  # 12 tensors shared by the two 12-layer groups
    pool = blocks // 2 * 16
    labels = gen.tmpl_cc(V011, gpu_memory_utilization="0.92", num_gpu_blocks=str(blocks))
    c = Case(cid=cid, version="0.11.0rc2.dev420+gc5c8f5ea5", v0=False, model_name="gpt-oss-20b", model_root="/model",
             max_model_len=mml, start=start, n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=pool,
             block_size=16, max_num_seqs=256, kv_factor=0.5, tmpl=V011, mm_hits=False)
    reqs = []
    t = start - 420.0
    rid = 0
    while t < start + 600:
        t += rnd.expovariate(0.5)
        prompt = int(min(6000, max(600, rnd.lognormvariate(math.log(1800), 0.6))))
        cached = 1088 if rnd.random() < 0.93 else 0
        if rnd.random() < 1 / 6:
            g, reason = 8192, "length"
        else:
            g, reason = int(min(1500, max(150, rnd.lognormvariate(math.log(420), 0.6)))), "stop"
        reqs.append(Req(rid=rid, t_arr=t, prompt=prompt, cached=cached, gen=g, max_tokens=8192, reason=reason))
        rid += 1
    gen.simulate(c, reqs, step_fn=lambda n: 0.0135 + 0.00022 * n, prefill_fn=lambda r, n: 0.03 + (r.prompt - r.cached) / 9000.0,
                 gen_reserve=False)
    api, eng = "(APIServer pid=1)", "(EngineCore_DP0 pid=188)"
    ls = start - 1500
    L = [
        (ls, f"{api} INFO {ts(ls)} [api_server.py:1839] vLLM API server version {c.version}"),
        (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:233] non-default args: {{'model_tag': '/model', 'enable_auto_tool_choice': True, 'tool_call_parser': 'openai', "
                    "'host': '0.0.0.0', 'port': 8669, 'uvicorn_log_level': 'debug', 'model': '/model', 'trust_remote_code': True, 'served_model_name': ['gpt-oss-20b'], "
                    "'gpu_memory_utilization': 0.92, 'enable_log_requests': True}"),
        (ls + 9, f"{api} INFO {ts(ls + 9)} [model.py:547] Resolved architecture: GptOssForCausalLM"),
        (ls + 9.1, f"{api} INFO {ts(ls + 9)} [model.py:1510] Using max model len {mml}"),
        (ls + 9.2, f"{api} INFO {ts(ls + 9)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (ls + 9.3, f"{api} INFO {ts(ls + 9)} [config.py:271] Overriding max cuda graph capture size to 1024 for performance."),
        (ls + 16, f"{eng} INFO {ts(ls + 16)} [core.py:77] Initializing a V1 LLM engine ({c.version}) with config: model='/model', speculative_config=None, "
                   "tokenizer='/model', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, "
                   "dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
                   "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
                   "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, "
                   "disable_additional_properties=False, reasoning_parser='openai_gptoss'), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, "
                   "otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name=gpt-oss-20b, enable_prefix_caching=True, "
                   "chunked_prefill_enabled=True, pooler_config=None"),
        (ls + 40, f"{eng} INFO {ts(ls + 40)} [gpu_model_runner.py:2653] Model loading took 38.97 GiB and 21.806 seconds"),
    ]
    L += kv_lines(eng, ls + 74, avail, pool, mml, "gpu_worker.py:298", "kv_cache_utils.py:1087", "kv_cache_utils.py:1091")
    L += [(ls + 96, f"{eng} INFO {ts(ls + 96)} [gpu_model_runner.py:3480] Graph capturing finished in 19 secs, took 1.02 GiB"),
          (ls + 97, f"{eng} INFO {ts(ls + 97)} [core.py:210] init engine (profile, create kv cache, warmup model) took 56.51 seconds"),
          (ls + 99, f"{api} INFO {ts(ls + 99)} [api_server.py:1910] Starting vLLM API server 0 on http://0.0.0.0:8669")]
    L += gen.stats_lines(c, start - 10, start + 600, 1, "loggers.py:123")
    L += gen.access_lines(c, 1, "/v1/chat/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", "/model", "--tensor-parallel-size", "1", "--trust-remote-code", "--gpu-memory-utilization", "0.92",
                      "--enable-auto-tool-choice", "--tool-call-parser", "openai", "--tool-call-parser", "openai", "--host", "0.0.0.0",
                      "--port", "8669", "--served-model-name", "gpt-oss-20b", "--uvicorn-log-level", "debug", "--enable-log-requests"],
             "args": {"model": "/model", "tensor-parallel-size": 1, "trust-remote-code": True, "gpu-memory-utilization": 0.92,
                      "enable-auto-tool-choice": True, "tool-call-parser": "openai", "host": "0.0.0.0", "port": 8669,
                      "served-model-name": "gpt-oss-20b", "uvicorn-log-level": "debug", "enable-log-requests": True}}
    total = 85899345920
    used = int(0.92 * 80 * GiB) + 540 * 1024 ** 2
    dev = [{"index": 0, "name": "NVIDIA A100 80GB PCIe", "memory_total": total, "memory_used": used,
            "processes": [{"pid": 188, "name": "VLLM::EngineCore", "used_memory": used - 560 * 1024 ** 2}]}]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json(c.version, c.model_name, c.model_root, mml, int(start - 1400)), engine_args=eargs,
              model_config=gptoss20b_config(), gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Users report answers that repeat the same sentence and never stop since the upgrade from v0.10.2. Request-log lines filtered out of logs.txt before hand-over (they carry prompt text).",
              endpoint="http://gpt-oss-20b.internal:8669")


# --------------------------------------------------------------------------------------------
# 3. zr-dflash15-awq-35b-accept-1-5 (vLLM 0.19.0, 2x RTX 4090, DFlash k=15)
# --------------------------------------------------------------------------------------------
def qwen35_35b_awq_config() -> dict:
    cfg = json.loads((ROOT / "cases" / "n-qwen36-35b-align-conc1-zero-hits" / "bundle" / "model_config.json").read_text())
    cfg["quantization_config"] = {"bits": 4, "group_size": 128, "modules_to_not_convert": ["visual", "mlp.gate", "mlp.shared_expert_gate", "linear_attn.in_proj_a", "linear_attn.in_proj_b", "lm_head"],
                                  "quant_method": "awq", "version": "gemm", "zero_point": True}
    return cfg


def case_dflash() -> None:
    cid = "zr-dflash15-awq-35b-accept-1-5"
    rnd = random.Random(52)
    start = utc(2026, 4, 8, 7, 50, 0)
    mml = 262144
    bs = 544
    nblocks = 406
    pool = nblocks * bs
    labels = gen.tmpl_cc(V019, block_size=str(bs), mamba_block_size=str(bs), gpu_memory_utilization="0.95", num_gpu_blocks=str(nblocks))
    k = 15
    rates = [0.30, 0.10, 0.05, 0.05] + [0.0] * (k - 4)
    c = Case(cid=cid, version="0.19.0", v0=False, model_name="Qwen3.5-VL", model_root="/model/llm/Qwen3.5-35B-A3B-AWQ",
             max_model_len=mml, start=start, n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=pool,
             block_size=bs, max_num_seqs=8, spec_k=k, spec_pos_rates=rates, tmpl=V019, mm_hits=False)
    reqs = []
    t = start - 90.0
    rid = 0
    while t < start + 600:
        t += rnd.uniform(12.0, 40.0)
        prompt = rnd.randint(1500, 9000)
        cached = (prompt * rnd.uniform(0.5, 0.9)) // bs * bs if rid % 3 else 0
        g = rnd.randint(300, 1500)
        r = Req(rid=rid, t_arr=t, prompt=prompt, cached=int(cached), gen=g, max_tokens=mml - prompt, reason="stop", tps=1.5)
        reqs.append(r)
        rid += 1
    gen.simulate(c, reqs, step_fn=lambda n: 0.040 + 0.002 * (n - 1), prefill_fn=lambda r, n: 0.05 + (r.prompt - r.cached) / 6500.0,
                 gen_reserve=False)
    api, eng = "(APIServer pid=11250)", "(EngineCore pid=11391)"
    ls = start - 900
    L = [
        (ls - 2, f"INFO {ts(ls - 2)} [__init__.py:216] Automatically detected platform cuda."),
        (ls, f"{api} INFO {ts(ls)} [api_server.py:1947] vLLM API server version 0.19.0"),
        (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:299] non-default args: {{'model_tag': '/model/llm/Qwen3.5-35B-A3B-AWQ', 'host': '0.0.0.0', 'port': 9997, "
                    "'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', 'chat_template_content_format': 'auto', "
                    "'model': '/model/llm/Qwen3.5-35B-A3B-AWQ', 'allowed_local_media_path': '/', 'generation_config': 'auto', 'max_model_len': -1, "
                    "'served_model_name': ['Qwen3.5-VL'], 'attention_backend': 'FLASH_ATTN', 'reasoning_parser': 'qwen3', 'distributed_executor_backend': 'mp', "
                    "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95, 'kv_cache_dtype': 'auto', 'enable_prefix_caching': True, "
                    "'max_num_batched_tokens': 8192, 'max_num_seqs': 8, 'speculative_config': {'method': 'dflash', 'num_speculative_tokens': 15, "
                    "'model': '/model/llm/Qwen3.5-35B-A3B-DFlash'}}"),
        (ls + 8, f"{api} INFO {ts(ls + 8)} [model.py:552] Resolved architecture: Qwen3_5MoeForConditionalGeneration"),
        (ls + 8.1, f"{api} INFO {ts(ls + 8)} [model.py:1677] Using max model len {mml}"),
        (ls + 8.2, f"{api} INFO {ts(ls + 8)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (ls + 30, f"{eng} INFO {ts(ls + 30)} [gpu_model_runner.py:3582] Model loading took 11.4821 GiB memory and 61.240 seconds"),
    ]
    L += kv_lines(eng, ls + 95, 8.46, pool, mml, "gpu_worker.py:379", "kv_cache_utils.py:1313", "kv_cache_utils.py:1317")
    L += [(ls + 121, f"{eng} INFO {ts(ls + 121)} [gpu_model_runner.py:4512] Graph capturing finished in 25 secs, took 0.71 GiB"),
          (ls + 123, f"{api} INFO {ts(ls + 123)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nblocks}"),
          (ls + 124, f"{api} INFO {ts(ls + 124)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:9997")]
    L += gen.stats_lines(c, start - 10, start + 600, 11250, "loggers.py:259", spec_ref="metrics.py:101", mm_line=False)
    L += gen.access_lines(c, 11250, "/v1/chat/completions")
    eargs = {"argv": ["vllm", "serve", "/model/llm/Qwen3.5-35B-A3B-AWQ", "--served-model-name", "Qwen3.5-VL", "--gpu-memory-utilization", "0.95",
                      "--max-num-seqs", "8", "--tensor-parallel-size", "2", "--generation-config", "auto", "--reasoning-parser", "qwen3",
                      "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder", "--speculative-config",
                      '{"method":"dflash","num_speculative_tokens":15,"model":"/model/llm/Qwen3.5-35B-A3B-DFlash"}',
                      "--distributed-executor-backend", "mp", "--allowed-local-media-path", "/", "--chat-template-content-format", "auto",
                      "--enable-prefix-caching", "--kv-cache-dtype", "auto", "--max-num-batched-tokens", "8192", "--max-model-len", "auto",
                      "--attention-backend", "flash_attn", "--host", "0.0.0.0", "--port", "9997"],
             "args": {"model": "/model/llm/Qwen3.5-35B-A3B-AWQ", "served-model-name": "Qwen3.5-VL", "gpu-memory-utilization": 0.95,
                      "max-num-seqs": 8, "tensor-parallel-size": 2, "generation-config": "auto", "reasoning-parser": "qwen3",
                      "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder",
                      "speculative-config": '{"method":"dflash","num_speculative_tokens":15,"model":"/model/llm/Qwen3.5-35B-A3B-DFlash"}',
                      "distributed-executor-backend": "mp", "enable-prefix-caching": True, "kv-cache-dtype": "auto",
                      "max-num-batched-tokens": 8192, "max-model-len": "auto", "attention-backend": "flash_attn", "port": 9997}}
    total = 25757220864
    used = int(0.95 * total) + 380 * 1024 ** 2
    dev = [{"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": total, "memory_used": used,
            "processes": [{"pid": 11452 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 400 * 1024 ** 2}]} for i in range(2)]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json(c.version, c.model_name, c.model_root, mml, int(start - 800)), engine_args=eargs,
              model_config=qwen35_35b_awq_config(), gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Home server; the operator says decoding got slower after enabling DFlash on the AWQ model.",
              endpoint="http://192.168.1.20:9997")


# --------------------------------------------------------------------------------------------
# 4. zr-gemma4-31b-fp8-block-a-a-a-5060ti (vLLM 0.19.0, 4x RTX 5060 Ti, TP4, fp8 KV assumed)
# --------------------------------------------------------------------------------------------
def gemma4_31b_config() -> dict:
    cfg = json.loads((ROOT / "cases" / "w-gemma4-upgrade-10x-pool-usage-drop" / "bundle" / "model_config.json").read_text())
    cfg["quantization_config"] = {
        "config_groups": {"group_0": {"input_activations": {"dynamic": True, "group_size": 128, "num_bits": 8, "strategy": "group",
                                                            "symmetric": True, "type": "float"},
                                      "targets": ["Linear"],
                                      "weights": {"block_structure": [128, 128], "dynamic": False, "num_bits": 8, "strategy": "block",
                                                  "symmetric": True, "type": "float"}}},
        "format": "float-quantized", "ignore": ["lm_head", "re:.*vision.*", "re:.*audio.*"], "quant_method": "compressed-tensors",
        "quantization_status": "compressed"}
    return cfg


def case_gemma() -> None:
    cid = "zr-gemma4-31b-fp8-block-a-a-a-5060ti"
    rnd = random.Random(39407)
    start = utc(2026, 4, 9, 13, 0, 0)
    mml = 32768
    per_tok = 131072                            # bytes per token per GPU, fp8, TP4, vLLM grouping
    avail = 4.50
    pool = int(avail * GiB // per_tok)          # 36,864
    bs = 16
    labels = gen.tmpl_cc(V019, block_size=str(bs), mamba_block_size="None", mamba_cache_mode="none", cache_dtype="fp8",
                         gpu_memory_utilization="0.9", num_gpu_blocks=str(pool // bs), sliding_window="1024")
    c = Case(cid=cid, version="0.19.0", v0=False, model_name="RedHatAI/gemma-4-31B-it-FP8-block", model_root="RedHatAI/gemma-4-31B-it-FP8-block",
             max_model_len=mml, start=start, n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=pool, block_size=bs,
             max_num_seqs=256, tmpl=V019, mm_hits=False)
    reqs = []
    t = start - 100.0
    rid = 0
    while t < start + 600:
        t += rnd.uniform(25.0, 75.0)
        prompt = rnd.randint(40, 2500)
        r = Req(rid=rid, t_arr=t, prompt=prompt, cached=0, gen=2048, max_tokens=2048, reason="length")
        reqs.append(r)
        rid += 1
    gen.simulate(c, reqs, step_fn=lambda n: 0.044 + 0.003 * (n - 1), prefill_fn=lambda r, n: 0.08 + r.prompt / 3000.0, gen_reserve=False)
    api, eng = "(APIServer pid=1)", "(EngineCore pid=142)"
    ls = start - 700
    L = [
        (ls - 2, f"INFO {ts(ls - 2)} [__init__.py:216] Automatically detected platform cuda."),
        (ls, f"{api} INFO {ts(ls)} [api_server.py:1947] vLLM API server version 0.19.0"),
        (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:299] non-default args: {{'model_tag': 'RedHatAI/gemma-4-31B-it-FP8-block', 'host': '0.0.0.0', "
                    "'model': 'RedHatAI/gemma-4-31B-it-FP8-block', 'max_model_len': 32768, 'tensor_parallel_size': 4, 'kv_cache_dtype': 'fp8'}"),
        (ls + 7, f"{api} INFO {ts(ls + 7)} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration"),
        (ls + 7.1, f"{api} INFO {ts(ls + 7)} [model.py:1677] Using max model len {mml}"),
        (ls + 7.2, f"{api} INFO {ts(ls + 7)} [cache.py:213] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. "
                    "Meanwhile, it may cause accuracy drop without a proper scaling factor."),
        (ls + 7.3, f"{api} INFO {ts(ls + 7)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (ls + 15, f"{eng} INFO {ts(ls + 15)} [core.py:101] Initializing a V1 LLM engine (v0.19.0) with config: model='RedHatAI/gemma-4-31B-it-FP8-block', "
                   "speculative_config=None, tokenizer='RedHatAI/gemma-4-31B-it-FP8-block', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
                   "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, "
                   "tensor_parallel_size=4, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, "
                   "enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, seed=0, served_model_name=RedHatAI/gemma-4-31B-it-FP8-block, "
                   "enable_prefix_caching=True, chunked_prefill_enabled=True"),
        (ls + 60.1, f"(Worker_TP0 pid=301) WARNING {ts(ls + 60)} [kv_cache.py:100] Using KV cache scaling factor 1.0 for fp8_e4m3. This may cause accuracy issues. "
                     "Please make sure k/v_scale scaling factors are available in the fp8 checkpoint."),
        (ls + 95, f"(Worker_TP0 pid=301) INFO {ts(ls + 95)} [gpu_model_runner.py:3582] Model loading took 8.02 GiB memory and 80.415 seconds"),
        (ls + 122, f"(Worker_TP0 pid=301) INFO {ts(ls + 122)} [gpu_worker.py:379] Available KV cache memory: {avail:.2f} GiB"),
        (ls + 122.1, f"{eng} INFO {ts(ls + 122)} [kv_cache_utils.py:1313] GPU KV cache size: {pool:,} tokens"),
        (ls + 122.2, f"{eng} INFO {ts(ls + 122)} [kv_cache_utils.py:1317] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
        (ls + 150, f"(Worker_TP0 pid=301) INFO {ts(ls + 150)} [gpu_model_runner.py:4512] Graph capturing finished in 27 secs, took 0.38 GiB"),
        (ls + 151, f"{eng} INFO {ts(ls + 151)} [core.py:262] init engine (profile, create kv cache, warmup model) took 55.63 seconds"),
        (ls + 152, f"{api} INFO {ts(ls + 152)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // bs}"),
        (ls + 153, f"{api} INFO {ts(ls + 153)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    L += gen.stats_lines(c, start - 10, start + 600, 1, "loggers.py:259", mm_line=False)
    L += gen.access_lines(c, 1, "/v1/chat/completions")
    eargs = {"argv": ["vllm", "serve", "RedHatAI/gemma-4-31B-it-FP8-block", "--host", "0.0.0.0", "--tensor-parallel-size", "4",
                      "--max-model-len", "32768", "--kv-cache-dtype", "fp8"],
             "args": {"model": "RedHatAI/gemma-4-31B-it-FP8-block", "host": "0.0.0.0", "tensor-parallel-size": 4,
                      "max-model-len": 32768, "kv-cache-dtype": "fp8"}}
    total = 17103323136
    used = int(0.9 * total) + 420 * 1024 ** 2
    dev = [{"index": i, "name": "NVIDIA GeForce RTX 5060 Ti", "memory_total": total, "memory_used": used,
            "processes": [{"pid": 301 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 450 * 1024 ** 2}]} for i in range(4)]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json(c.version, c.model_name, c.model_root, mml, int(start - 500)), engine_args=eargs,
              model_config=gemma4_31b_config(), gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Workstation test of the FP8_BLOCK checkpoint; every chat answer degenerates into ' a a a a ...' until max_tokens.",
              endpoint="http://localhost:8000")


if __name__ == "__main__":
    case_triton()
    case_gptoss()
    case_dflash()
    case_gemma()
