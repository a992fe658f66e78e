"""Writer zj's cases: builds cases/zj-*/bundle with gen.py (copied from cases/_tools/zf/gen.py).

Run from the worktree root:  /work/main/.venv/bin/python cases/_tools/zj/cases.py
Every number that is not quoted from the source is listed under `assumed:` in the case.yaml.
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

GiB = 1024 ** 3

LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256,
}


def ts(t: float) -> str:
    return gen.ts(t)


def spec_lines_v09(c: Case, t0: float, t1: float, k: int, rates: list[float]) -> list[tuple[float, str]]:
    """vLLM 0.9.x V1 SpecDecoding log line (vllm/v1/spec_decode/metrics.py), every 10 s."""
    out = []
    t = t0 + 10
    while t <= t1:
        d = sum(r.steps_by(t) - r.steps_by(t - 10) for r in c.reqs)
        if d:
            acc = [round(d * p) for p in rates]
            na = sum(acc)
            out.append((t + 0.001, f"INFO {ts(t)} [metrics.py:86] SpecDecoding metrics: Draft acceptance rate: "
                                   f"{100.0 * na / (d * k):.1f}%, Mean acceptance length: {1 + na / d:.2f}, "
                                   f"Accepted: {na} tokens, Drafted: {d * k} tokens, Per-position acceptance rate: "
                                   f"{', '.join(f'{a / d:.3f}' for a in acc)}"))
        t += 10
    return out


def closed_loop(t_from: float, t_to: float, prefill_s: float, step_s: float, tps: float, mk) -> list[Req]:
    """benchmark_serving --max-concurrency 1: the next request is sent when the previous one ends."""
    reqs, t, i = [], t_from, 0
    while t < t_to:
        prompt, gen_n, max_t, reason = mk(i)
        r = Req(i, t, prompt, 0, gen_n, max_t, reason, tps=tps)
        r.t_sched = t
        r.step_s = step_s
        r.t_first = t + prefill_s
        r.t_end = r.t_first + r.steps() * step_s
        reqs.append(r)
        t = r.t_end + 0.004
        i += 1
    return reqs


# ---------------------------------------------------------------- zj-awq-forced-legacy-kernel-5x
def awq() -> None:
    cid = "zj-awq-forced-legacy-kernel-5x"
    tmpl = "c-long-prompt-hol-short-chats"  # vLLM 0.9.2 families
    start = dt.datetime(2025, 7, 22, 9, 0, 0, tzinfo=dt.timezone.utc).timestamp()
    n, iv = 61, 10.0
    end = start + (n - 1) * iv
    model = "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"
    bpt = 32 * 8 * 128 * 2 * 2  # 131072 B per token (fp16 KV)
    kv_gib = 13.30
    blocks = int(kv_gib * GiB / bpt) // 16
    pool = blocks * 16
    c = Case(cid, "0.9.2", False, model, model, 8192, start, n, iv,
             gen.tmpl_cc(tmpl, num_gpu_blocks=blocks, enable_prefix_caching="True"), pool, 16, 256, tmpl=tmpl)
    step = 0.0472  # legacy AWQ GEMM, batch 1, A10G
    c.reqs = closed_loop(start - 200.0, end + 30, 0.148, step, 1.0, lambda i: (64, 512, 512, "length"))
    api = 1
    created = int(start - 5400)
    logs = [
        (start - 5400, f"INFO {ts(start - 5400)} [__init__.py:244] Automatically detected platform cuda."),
        (start - 5398, f"INFO {ts(start - 5398)} [api_server.py:1395] vLLM API server version 0.9.2"),
        (start - 5398, f"INFO {ts(start - 5398)} [cli_args.py:325] non-default args: {{'model': '{model}', 'tokenizer': '{model}', 'max_model_len': 8192, 'quantization': 'awq'}}"),
        (start - 5390, f"INFO {ts(start - 5390)} [config.py:841] This model supports multiple tasks: {{'generate', 'classify', 'embed', 'reward'}}. Defaulting to 'generate'."),
        (start - 5390.5, f"INFO {ts(start - 5390.5)} [awq_marlin.py:120] Detected that the model can run with awq_marlin, however you specified quantization=awq explicitly, so forcing awq. Use quantization=awq_marlin for faster inference"),
        (start - 5390.4, f"WARNING {ts(start - 5390.4)} [config.py:931] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models."),
        (start - 5390.3, f"INFO {ts(start - 5390.3)} [config.py:2180] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (start - 5384, f"INFO {ts(start - 5384)} [core.py:526] Waiting for init message from front-end."),
        (start - 5383, f"INFO {ts(start - 5383)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None, compilation_config={{\"level\":3,\"debug_dump_path\":\"\",\"cache_dir\":\"\",\"backend\":\"\",\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"max_capture_size\":512}}"),
        (start - 5378, f"INFO {ts(start - 5378)} [gpu_model_runner.py:1770] Starting to load model {model}..."),
        (start - 5360, f"INFO {ts(start - 5360)} [gpu_model_runner.py:1801] Model loading took 5.3744 GiB and 17.802412 seconds"),
        (start - 5338, f"INFO {ts(start - 5338)} [gpu_worker.py:232] Available KV cache memory: {kv_gib:.2f} GiB"),
        (start - 5338, f"INFO {ts(start - 5338)} [kv_cache_utils.py:716] GPU KV cache size: {pool:,} tokens"),
        (start - 5338, f"INFO {ts(start - 5338)} [kv_cache_utils.py:720] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x"),
        (start - 5316, f"INFO {ts(start - 5316)} [gpu_model_runner.py:2326] Graph capturing finished in 22 secs, took 0.47 GiB"),
        (start - 5315, f"INFO {ts(start - 5315)} [core.py:172] init engine (profile, create kv cache, warmup model) took 45.21 seconds"),
        (start - 5313, f"INFO {ts(start - 5313)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines(c, start - 60, end, api, "loggers.py:118", prefix=False, mm_line=False)
    logs += [(r.t_arr + 0.002, f'INFO:     172.17.0.1:{41000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK')
             for r in c.reqs if start - 60 <= r.t_arr <= end]
    mc = dict(LLAMA31_8B, torch_dtype="float16",
              quantization_config={"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                                   "quant_method": "awq", "version": "gemm", "zero_point": True})
    tot = 24146608128
    dev = [{"index": 0, "name": "NVIDIA A10G", "memory_total": tot, "memory_used": 21908946944,
            "processes": [{"pid": 73, "name": "python3", "used_memory": 21634170880}]}]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model, "--tokenizer", model,
            "--max-model-len", "8192", "--quantization", "awq"]
    ea = {"argv": argv, "args": {"model": model, "tokenizer": model, "max-model-len": 8192, "quantization": "awq",
                                 "gpu-memory-utilization": 0.9, "max-num-seqs": 256, "max-num-batched-tokens": 2048,
                                 "enable-chunked-prefill": True, "enable-prefix-caching": True, "block-size": 16}}
    notes = ("Llama-3.1-8B AWQ-INT4 in the vllm/vllm-openai:latest container (VLLM_USE_V1=1) on one A10G. "
             "benchmark_serving at max concurrency 1 reports a total token throughput of ~23 tok/s; the same container "
             "without --quantization awq gave ~123 tok/s. Captured during the slow run: /metrics every 10 s for 10 min "
             "and the container log.")
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.9.2", model, model, 8192, created),
              engine_args=ea, model_config=mc, gpu=gen.gpu_samples(c, dev), logs=logs, notes=notes,
              endpoint="http://a10g-bench:8000")


# ---------------------------------------------------------------- zj-eagle3-k4-bs1-tpot-healthy
def eagle3() -> None:
    cid = "zj-eagle3-k4-bs1-tpot-healthy"
    tmpl = "c-long-prompt-hol-short-chats"  # vLLM 0.9.2 families
    start = dt.datetime(2025, 7, 9, 14, 0, 0, tzinfo=dt.timezone.utc).timestamp()
    n, iv = 61, 10.0
    end = start + (n - 1) * iv
    model = "meta-llama/Llama-3.1-8B-Instruct"
    draft = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    K, rates = 4, [0.76, 0.58, 0.43, 0.31]
    al = 1 + sum(rates)  # 3.08
    tpot = 0.00405
    step = tpot * al
    bpt = 33 * 8 * 128 * 2 * 2  # 32 target layers + 1 EAGLE3 draft layer
    kv_gib = 52.61
    blocks = int(kv_gib * GiB / bpt) // 16
    pool = blocks * 16
    c = Case(cid, "0.9.2", False, model, model, 131072, start, n, iv,
             gen.tmpl_cc(tmpl, num_gpu_blocks=blocks, enable_prefix_caching="True"), pool, 16, 256, tmpl=tmpl,
             spec_k=K, spec_pos_rates=rates)
    rng = random.Random(20780)

    def mk(i):
        g = rng.randint(140, 256)
        return rng.randint(60, 180), g, 256, ("length" if g == 256 else "stop")
    c.reqs = closed_loop(start - 120.0, end + 10, 0.021, step, al, mk)
    created = int(start - 2400)
    logs = [
        (start - 2400, f"INFO {ts(start - 2400)} [__init__.py:244] Automatically detected platform cuda."),
        (start - 2398, f"INFO {ts(start - 2398)} [api_server.py:1395] vLLM API server version 0.9.2"),
        (start - 2398, f"INFO {ts(start - 2398)} [cli_args.py:325] non-default args: {{'model': '{model}', 'speculative_config': {{'method': 'eagle3', 'model': '{draft}', 'num_speculative_tokens': {K}}}}}"),
        (start - 2390, f"INFO {ts(start - 2390)} [config.py:2180] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (start - 2383, f"INFO {ts(start - 2383)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=SpeculativeConfig(method='eagle3', model='{draft}', num_spec_tokens={K}), tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True"),
        (start - 2376, f"INFO {ts(start - 2376)} [gpu_model_runner.py:1770] Starting to load model {model}..."),
        (start - 2352, f"INFO {ts(start - 2352)} [gpu_model_runner.py:1801] Model loading took 15.8412 GiB and 24.118903 seconds"),
        (start - 2326, f"INFO {ts(start - 2326)} [gpu_worker.py:232] Available KV cache memory: {kv_gib:.2f} GiB"),
        (start - 2326, f"INFO {ts(start - 2326)} [kv_cache_utils.py:716] GPU KV cache size: {pool:,} tokens"),
        (start - 2326, f"INFO {ts(start - 2326)} [kv_cache_utils.py:720] Maximum concurrency for 131,072 tokens per request: {pool / 131072:.2f}x"),
        (start - 2300, f"INFO {ts(start - 2300)} [gpu_model_runner.py:2326] Graph capturing finished in 26 secs, took 0.61 GiB"),
        (start - 2297, f"INFO {ts(start - 2297)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines(c.__class__(**{**c.__dict__, "spec_k": 0}), start - 60, end, 1, "loggers.py:118",
                            prefix=False, mm_line=False)
    logs += spec_lines_v09(c, start - 60, end, K, rates)
    logs += [(r.t_arr + 0.002, f'INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for r in c.reqs if start - 60 <= r.t_arr <= end]
    tot = 85520809984
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": tot, "memory_used": 78291156992,
            "processes": [{"pid": 4127, "name": "python3", "used_memory": 77229998080}]}]
    spec = {"method": "eagle3", "model": draft, "num_speculative_tokens": K}
    argv = ["vllm", "serve", model, "--speculative-config", json.dumps(spec)]
    ea = {"argv": argv, "args": {"model": model, "speculative-config": spec, "max-model-len": 131072,
                                 "gpu-memory-utilization": 0.9, "max-num-seqs": 256, "max-num-batched-tokens": 8192,
                                 "enable-chunked-prefill": True, "enable-prefix-caching": True, "block-size": 16}}
    notes = ("Batch-size-1 latency check of EAGLE speculative decoding on Llama-3.1-8B-Instruct, one H100. This run: "
             "EAGLE3 head, K=4, one request at a time (MT-bench style prompts). Our sweep gave TPOT 7.07 ms without "
             "speculation, 4.29 ms with EAGLE1 (best K=3) and 4.05 ms with EAGLE3 (best K=4): EAGLE3's acceptance "
             "length is 20-30% higher than EAGLE1's but it is only ~5% faster at the best K. Is something wrong?")
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.9.2", model, model, 131072, created),
              engine_args=ea, model_config=LLAMA31_8B, gpu=gen.gpu_samples(c, dev), logs=logs, notes=notes,
              endpoint="http://h100-spec-bench:8000")


# ---------------------------------------------------------------- zj-arc-b50-fp8-kv-exclamations
def arc() -> None:
    cid = "zj-arc-b50-fp8-kv-exclamations"
    tmpl = "c-watermark-off-recompute-thrash"  # vLLM 0.22 families
    version = "0.22.1rc1.dev0+gb3f0a0a0d"
    start = dt.datetime(2026, 6, 15, 8, 40, 0, tzinfo=dt.timezone.utc).timestamp()
    n, iv = 61, 10.0
    end = start + (n - 1) * iv
    served = "qwen3.6-27b"
    root = "/root/.cache/huggingface/qwen3.6-27b-int4-autoround"
    # Qwen3.6-27B: 16 full-attention layers x 4 KV heads x 256, TP2 -> 2 heads per card; fp8 KV = 1 byte.
    block = 1568  # fp8 attention page (1568 x 2 x 256 x 2 x 1 B = 1,605,632 B) >= mamba page
    page = 1605632
    kv_gib = 4.60
    pages = int(kv_gib * GiB / page)
    groups = pages // 16
    pool = groups * block
    nblocks = groups * 4
    cc = gen.tmpl_cc(tmpl, num_gpu_blocks=nblocks, enable_prefix_caching="True", block_size=block,
                     cache_dtype="fp8", mamba_block_size=block, mamba_cache_dtype="auto", mamba_cache_mode="align",
                     mamba_page_size_padded=page, mamba_ssm_cache_dtype="float32", kv_cache_memory_bytes="None")
    c = Case(cid, version, False, served, root, 32768, start, n, iv, cc, pool, block, 16, tmpl=tmpl)
    rng = random.Random(45540)
    reqs, t, i = [], start - 420.0, 0
    bad_from = start + 230.0
    while t < end + 20:
        prompt = rng.randint(300, 2500)
        if t < bad_from:
            g, reason = rng.randint(140, 620), "stop"
        else:
            g, reason = 2048, "length"
        reqs.append(Req(i, t, prompt, 0, g, 2048, reason))
        t += rng.expovariate(1 / 24.0)
        i += 1
    gen.simulate(c, reqs, lambda k: 0.0625 + 0.0045 * (k - 1), lambda r, k: r.prompt / 820.0, gen_reserve=False)
    api, eng, w0 = 1, 212, 318
    t0 = start - 3300
    created = int(t0)
    L = lambda dt_, s: (t0 + dt_, s)  # noqa: E731
    logs = [
        L(0, f"INFO {ts(t0)} [__init__.py:239] Automatically detected platform xpu."),
        L(2, f"(APIServer pid={api}) INFO {ts(t0 + 2)} [api_server.py:1978] vLLM API server version {version}"),
        L(2.1, f"(APIServer pid={api}) INFO {ts(t0 + 2)} [utils.py:299] non-default args: {{'model_tag': '{root}', 'model': '{root}', 'served_model_name': ['{served}'], 'max_model_len': 32768, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 16, 'enable_prefix_caching': True, 'kv_cache_dtype': 'fp8'}}"),
        L(9, f"(APIServer pid={api}) INFO {ts(t0 + 9)} [model.py:561] Resolved architecture: Qwen3_5ForConditionalGeneration"),
        L(9.1, f"(APIServer pid={api}) INFO {ts(t0 + 9)} [model.py:1702] Using max model len 32768"),
        L(9.2, f"(APIServer pid={api}) INFO {ts(t0 + 9)} [cache.py:213] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor."),
        L(9.3, f"(APIServer pid={api}) INFO {ts(t0 + 9)} [scheduler.py:248] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        L(9.4, f"(APIServer pid={api}) INFO {ts(t0 + 9)} [interface.py:773] Setting attention block size to {block} tokens to ensure that attention page size is >= mamba page size."),
        L(18, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 + 18)} [core.py:104] Initializing a V1 LLM engine (v{version}) with config: model='{root}', speculative_config=None, tokenizer='{root}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=auto-round, enforce_eager=False, kv_cache_dtype=fp8, device_config=xpu, seed=0, served_model_name={served}, enable_prefix_caching=True, chunked_prefill_enabled=True"),
        L(30, f"(Worker_TP0 pid={w0}) INFO {ts(t0 + 30)} [gpu_model_runner.py:3702] Starting to load model {root}..."),
        L(96, f"(Worker_TP0 pid={w0}) INFO {ts(t0 + 96)} [gpu_model_runner.py:3795] Model loading took 8.1406 GiB and 65.902114 seconds"),
        L(131, f"(Worker_TP0 pid={w0}) INFO {ts(t0 + 131)} [xpu_worker.py:141] Available KV cache memory: {kv_gib:.2f} GiB"),
        L(131.1, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 + 131)} [kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens"),
        L(131.2, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 + 131)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: {pool / 32768:.2f}x"),
        L(188, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 + 188)} [core.py:271] init engine (profile, create kv cache, warmup model) took 92.37 seconds"),
        L(191, f"(APIServer pid={api}) INFO {ts(t0 + 191)} [api_server.py:2139] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += gen.stats_lines(c, start - 60, end, api, "loggers.py:259", mm_line=False)
    logs += [(r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     172.20.0.5:{45000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for r in c.reqs if start - 60 <= r.t_arr <= end]
    k, tt = 0, start
    while tt <= end:
        logs.append((tt + 0.2, f'(APIServer pid={api}) INFO:     172.20.0.9:{38100 + k % 7} - "GET /metrics HTTP/1.1" 200 OK'))
        tt += iv
        k += 1
    argv = None
    ea = {"argv": argv, "args": {"model": root, "served-model-name": served, "max-model-len": 32768,
                                 "tensor-parallel-size": 2, "gpu-memory-utilization": 0.9, "max-num-seqs": 16,
                                 "enable-prefix-caching": True, "kv-cache-dtype": "fp8"}}
    notes = ("vLLM XPU container (image vllm-intel-xpu:2026-06-13_17-28-b3f0a0a0d) on 2 x Intel Arc Pro B50, "
             "qwen3.6-27b int4, tensor parallel 2, --kv-cache-dtype fp8, team chat front end. After some time the model "
             "starts repeating \"!!!!!!!!...\" in every response; nothing suspicious in the logs. Tried ~30 "
             "builds, prefix caching off, gpu-memory-utilization 0.85-0.94, max-num-seqs 1..64, card firmware, reboot: "
             "no change. With --kv-cache-dtype auto it works fine so far. /metrics every 10 s for 10 min and the container "
             "log tail; no NVML on this host, launch flags as the operator gave them.")
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json(version, served, root, 32768, created),
              engine_args=ea, model_config=None, gpu=[], logs=logs, notes=notes, endpoint="http://arc-b50-01:8002")


if __name__ == "__main__":
    awq()
    eagle3()
    arc()
