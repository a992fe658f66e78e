"""Build the zu-* case bundles: python cases/_tools/zu/cases.py [case-id ...]  (from the worktree root).

Every case is one list of requests sent one after another (concurrency 1, as in each source); the
timings of each request (prefill time, decode step, tokens per step) follow the case.yaml `assumed`
lines. gen.scrape / gen.stats_lines (copied from writer zn) turn that list into scrapes and log lines.
Seeded, no wall-clock input: re-running rewrites the same bundles.
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
ts = gen.ts


def out_dir(cid: str) -> Path:
    return ROOT / "cases" / cid / "bundle"


def sequential(c: Case, rng, t_begin, t_stop, prompt_rng, gen_rng, prefill_fn, step_s, gap_rng, tps=1.0, max_tokens=1024):
    """Closed loop, one client: the next request is sent gap seconds after the previous one ends."""
    reqs, t, i = [], t_begin, 0
    while t < t_stop:
        p = rng.randint(*prompt_rng)
        g = rng.randint(*gen_rng)
        r = Req(rid=i, t_arr=t, prompt=p, cached=0, gen=g, max_tokens=max_tokens, reason="stop")
        r.t_sched = t + 0.004
        r.step_s = step_s
        r.tps = tps
        r.t_first = r.t_sched + prefill_fn(p)
        r.t_end = r.t_first + r.steps() * step_s
        reqs.append(r)
        t = r.t_end + rng.uniform(*gap_rng)
        i += 1
    c.reqs = reqs
    return reqs


def v0_stats_lines(c: Case, t0: float, t1: float, ref: str, every: float = 5.0, spec=None) -> list:
    """V0 engine stats log (metrics.py): one line per interval in which the engine stepped; optional V0 spec line."""
    L = []
    t = t0 + every
    pre = lambda x: [r for r in c.reqs if r.t_first <= x]
    acc_cum = 0
    while t <= t1:
        a, b = t - every, t
        active = any(r.t_sched < b and r.t_end > a for r in c.reqs)
        if active:
            pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
            gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
            run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
            wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
            blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
            usage = 100.0 * blocks * c.block_size / c.pool_tokens
            L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {usage:.1f}%, CPU KV cache usage: 0.0%."))
            if spec is not None:
                sref, k, frac, rate = spec
                steps = sum(r.steps_by(b) for r in c.reqs)
                emitted = sum(r.gen_by(b) for r in c.reqs)
                drafts = int(steps * frac)
                draft_tok = drafts * k
                acc = int(round(draft_tok * rate))
                eff = (emitted / (drafts * (k + 1))) if drafts else 0.0
                L.append((b + 0.001, f"INFO {ts(b)} {sref}] Speculative metrics: Draft acceptance rate: {acc / draft_tok if draft_tok else 0.0:.3f}, "
                                     f"System efficiency: {min(1.0, eff):.3f}, Number of speculative tokens: {k}, Number of accepted tokens: {acc}, "
                                     f"Number of draft tokens: {draft_tok}, Number of emitted tokens: {emitted}."))
        t += every
    return L


def gpu_recs(c: Case, devs: list, off: float = 0.4) -> list:
    return [{"t": round(c.start + k * c.interval + off, 3), "devices": devs} for k in range(c.n_scrapes)]


# ------------------------------------------------------------------ model configs (HF config.json)
LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.0.dev0", "use_cache": True,
    "vocab_size": 128256}
QWEN25_32B_AWQ = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
    "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 40,
    "num_hidden_layers": 64, "num_key_value_heads": 8, "quantization_config": {"bits": 4, "group_size": 128,
    "modules_to_not_convert": None, "quant_method": "awq", "version": "gemm", "zero_point": True},
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 152064}
QWEN3_14B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 17408, "max_position_embeddings": 40960, "max_window_layers": 40, "model_type": "qwen3",
    "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 151936}
LLAMA33_70B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu", "hidden_size": 8192,
    "initializer_range": 0.02, "intermediate_size": 28672, "max_position_embeddings": 131072, "mlp_bias": False,
    "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0,
    "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.47.0.dev0", "use_cache": True, "vocab_size": 128256}


# ------------------------------------------------------------------ case 1: eager on A6000 (dev-11)
def case_eager():
    cid = "zu-eager-a6000-igx-decode-4x"
    rng = random.Random(1101)
    tmpl = "f-fa3-fp8-kv-long-context-tp2"  # vLLM 0.8.5.post1 V1 exposition
    start = 1746786000.0  # 2025-05-09 10:20 UTC
    blocks = 13772
    cc = gen.tmpl_cc(tmpl, block_size=16, cache_dtype="auto", enable_prefix_caching="True", gpu_memory_utilization="0.9",
                     num_gpu_blocks=blocks, prefix_caching_hash_algo="builtin")
    c = Case(cid=cid, version="0.8.5", v0=False, model_name="surgical-vlm", model_root="/models/surgical-vlm",
             max_model_len=8192, start=start, n_scrapes=61, interval=10.0, labels_cc=cc, pool_tokens=blocks * 16,
             block_size=16, max_num_seqs=256, tmpl=tmpl)
    # 89 ms per token eager (11.2 tok/s); prefill ~0.35 ms/token eager on A6000 for an 8B model
    sequential(c, rng, start - 420, start + 600, (500, 900), (150, 400), lambda p: 0.06 + p * 0.00035, 0.0893,
               (2.0, 12.0), max_tokens=512)
    api = 7
    L = [
        (start - 900.0, f"INFO {ts(start - 900)} [__init__.py:239] Automatically detected platform cuda."),
        (start - 898.0, f"INFO {ts(start - 898)} [api_server.py:1043] vLLM API server version 0.8.5"),
        (start - 898.0, f"INFO {ts(start - 898)} [api_server.py:1044] args: Namespace(host='0.0.0.0', port=8000, model='/models/surgical-vlm', served_model_name=['surgical-vlm'], max_model_len=8192, gpu_memory_utilization=0.9, enforce_eager=True, disable_log_requests=True, ...)"),
        (start - 890.0, f"INFO {ts(start - 890)} [config.py:717] This model supports multiple tasks: {{'generate', 'embed', 'classify', 'score', 'reward'}}. Defaulting to 'generate'."),
        (start - 890.0, f"INFO {ts(start - 890)} [config.py:2003] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (start - 889.0, f"WARNING {ts(start - 889)} [cuda.py:93] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used"),
        (start - 885.0, f"INFO {ts(start - 885)} [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='/models/surgical-vlm', speculative_config=None, tokenizer='/models/surgical-vlm', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, served_model_name=surgical-vlm, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=False, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":0,\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[],\"max_capture_size\":0}}"),
        (start - 870.0, f"INFO {ts(start - 870)} [gpu_model_runner.py:1329] Starting to load model /models/surgical-vlm..."),
        (start - 842.0, f"INFO {ts(start - 842)} [gpu_model_runner.py:1347] Model loading took 14.9889 GiB and 27.613201 seconds"),
        (start - 838.0, f"INFO {ts(start - 838)} [kv_cache_utils.py:634] GPU KV cache size: {blocks * 16:,} tokens"),
        (start - 838.0, f"INFO {ts(start - 838)} [kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per request: {blocks * 16 / 8192:.2f}x"),
        (start - 836.0, f"INFO {ts(start - 836)} [core.py:159] init engine (profile, create kv cache, warmup model) took 5.21 seconds"),
        (start - 835.0, f"INFO {ts(start - 835)} [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000"),
    ]
    L += gen.stats_lines(c, start - 420, start + 600, api, "loggers.py:111", prefix=False, mm_line=False)
    L += [(t, l) for t, l in gen.access_lines(c, api, "/v1/chat/completions", v0=True)]
    L = [(t, l) for t, l in L if t <= start + 600]
    dev = [{"index": 0, "name": "NVIDIA RTX A6000", "memory_total": 51527024640, "memory_used": 47802433536,
            "processes": [{"pid": 2713, "name": "python3", "used_memory": 47283388416}]}]
    eargs = {"argv": ["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/surgical-vlm",
                      "--served-model-name", "surgical-vlm", "--host", "0.0.0.0", "--port", "8000",
                      "--max-model-len", "8192", "--gpu-memory-utilization", "0.9", "--enforce-eager"],
             "args": {"model": "/models/surgical-vlm", "served-model-name": "surgical-vlm", "max-model-len": 8192,
                      "gpu-memory-utilization": 0.9, "enforce-eager": True}}
    gen.write(c, out_dir(cid), server=gen.server_json("0.8.5", "surgical-vlm", "/models/surgical-vlm", 8192, int(start - 835)),
              engine_args=eargs, model_config=LLAMA31_8B, gpu=gpu_recs(c, dev), logs=L,
              notes="Holoscan IGX (arm64) with one RTX A6000; surgical assistant app, one user; reporter sees ~11 tok/s streaming.",
              endpoint="http://igx-01:8000")


# ------------------------------------------------------------------ case 2: role-only first chunk (V0 0.7.3)
def case_role():
    cid = "zu-chat-role-chunk-first-itl-healthy"
    rng = random.Random(1102)
    tmpl = "c-v0-recompute-warnings-limo32b"  # vLLM 0.7.3 V0 exposition
    start = 1742378400.0  # 2025-03-19 10:00 UTC
    blocks = 12544
    cc = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "1024", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
          "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
    c = Case(cid=cid, version="0.7.3", v0=True, model_name="Qwen/Qwen2.5-32B-Instruct-AWQ",
             model_root="Qwen/Qwen2.5-32B-Instruct-AWQ", max_model_len=16384, start=start, n_scrapes=61, interval=10.0,
             labels_cc=cc, pool_tokens=blocks * 16, block_size=16, max_num_seqs=256, tmpl=tmpl)

    def prefill(p):  # chunks of 2048 tokens, ~0.45 ms per prompt token, plus a few ms per step
        n = math.ceil(p / 2048)
        return p * 0.00045 + n * 0.006

    sequential(c, rng, start - 300, start + 600, (4900, 5200), (200, 400), prefill, 0.0201, (38.0, 58.0), max_tokens=1024)

    def iters(c, t):
        obs = []
        for r in c.reqs:
            if r.t_sched <= t:
                left = r.prompt
                k = 0
                while left > 0:
                    ch = min(2048, left)
                    if r.t_sched + (r.prompt - left + ch) * 0.00045 + (k + 1) * 0.006 <= t:
                        obs.append(ch)
                    left -= ch
                    k += 1
            obs.extend([1] * min(r.steps_by(t), 4000))
        return obs

    c.iter_fn = iters
    L = [
        (start - 1200.0, f"INFO {ts(start - 1200)} api_server.py:912] vLLM API server version 0.7.3"),
        (start - 1200.0, f"INFO {ts(start - 1200)} api_server.py:913] args: Namespace(host=None, port=8000, model='Qwen/Qwen2.5-32B-Instruct-AWQ', max_model_len=16384, gpu_memory_utilization=0.9, enable_chunked_prefill=True, max_num_batched_tokens=2048, disable_log_requests=True, ...)"),
        (start - 1191.0, f"INFO {ts(start - 1191)} awq_marlin.py:114] Detected that the model can run with awq_marlin, however you specified quantization=awq explicitly, so forcing awq. Use quantization=awq_marlin for faster inference"),
        (start - 1190.0, f"INFO {ts(start - 1190)} config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (start - 1189.0, f"INFO {ts(start - 1189)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.3) with config: model='Qwen/Qwen2.5-32B-Instruct-AWQ', speculative_config=None, tokenizer='Qwen/Qwen2.5-32B-Instruct-AWQ', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=16384, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda:0, served_model_name=Qwen/Qwen2.5-32B-Instruct-AWQ, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=False, "),
        (start - 1150.0, f"INFO {ts(start - 1150)} model_runner.py:1115] Loading model weights took 18.1423 GB"),
        (start - 1144.0, f"INFO {ts(start - 1144)} worker.py:267] Memory profiling takes 4.02 seconds"),
        (start - 1144.0, f"INFO {ts(start - 1144)} worker.py:267] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB"),
        (start - 1144.0, f"INFO {ts(start - 1144)} worker.py:267] model weights take 18.14GiB; non_torch_memory takes 0.38GiB; PyTorch activation peak memory takes 1.46GiB; the rest of the memory reserved for KV Cache is 51.26GiB."),
        (start - 1143.0, f"INFO {ts(start - 1143)} executor_base.py:111] # CUDA blocks: {blocks}, # CPU blocks: 1024"),
        (start - 1143.0, f"INFO {ts(start - 1143)} executor_base.py:116] Maximum concurrency for 16384 tokens per request: {blocks * 16 / 16384:.2f}x"),
        (start - 1120.0, f"INFO {ts(start - 1120)} model_runner.py:1562] Graph capturing finished in 21 secs, total 0.84 GiB"),
        (start - 1118.0, f"INFO {ts(start - 1118)} api_server.py:958] Starting vLLM API server on http://0.0.0.0:8000"),
    ]
    L += v0_stats_lines(c, start - 300, start + 600, "metrics.py:455")
    L += [(t, l) for t, l in gen.access_lines(c, 0, "/v1/chat/completions", v0=True)]
    L = [(t, l) for t, l in L if t <= start + 600]
    dev = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": 77653131264,
            "processes": [{"pid": 41822, "name": "python3", "used_memory": 77133037568}]}]
    eargs = {"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-32B-Instruct-AWQ",
                      "--quantization", "awq", "--max-model-len", "16384", "--gpu-memory-utilization", "0.9",
                      "--enable-chunked-prefill", "--max-num-batched-tokens", "2048"],
             "args": {"model": "Qwen/Qwen2.5-32B-Instruct-AWQ", "quantization": "awq", "max-model-len": 16384,
                      "gpu-memory-utilization": 0.9, "enable-chunked-prefill": True, "max-num-batched-tokens": 2048}}
    gen.write(c, out_dir(cid), server=gen.server_json("0.7.3", "Qwen/Qwen2.5-32B-Instruct-AWQ", "Qwen/Qwen2.5-32B-Instruct-AWQ", 16384, int(start - 1118)),
              engine_args=eargs, model_config=QWEN25_32B_AWQ, gpu=gpu_recs(c, dev), logs=L,
              notes="Streaming /v1/chat/completions test with ~5k-token prompts, one at a time; client measures TTFT 0.9 s and a first ITL of 1.3 s, later ITL 0.02 s.",
              endpoint="http://localhost:8000")


# ------------------------------------------------------------------ case 3: draft model, ~40% acceptance (vllm-ascend 0.19)
def case_ascend():
    cid = "zu-ascend-draft06b-accept40-tpot60"
    rng = random.Random(1103)
    tmpl = "b-hybrid-qwen35-block528"  # vLLM 0.19.1 V1 exposition
    start = 1785146400.0  # 2026-07-27 10:00 UTC
    blocks = 752
    cc = gen.tmpl_cc(tmpl, block_size=128, enable_prefix_caching="True", gpu_memory_utilization="0.9",
                     num_gpu_blocks=blocks, mamba_block_size="None", mamba_cache_mode="none",
                     mamba_page_size_padded="None", user_specified_block_size="False", _block_size_resolved="True")
    c = Case(cid=cid, version="0.19.0", v0=False, model_name="qwen3-14b", model_root="/data/models/Qwen3-14B",
             max_model_len=8192, start=start, n_scrapes=61, interval=10.0, labels_cc=cc, pool_tokens=blocks * 128,
             block_size=128, max_num_seqs=256, tmpl=tmpl, spec_k=3, spec_pos_rates=[0.6, 0.4, 0.2])
    # one speculative step (3 draft passes + 4-token verify) ~132 ms, 2.2 tokens per step -> 60 ms per output token
    sequential(c, rng, start - 360, start + 600, (120, 200), (200, 400), lambda p: 0.11 + p * 0.0002, 0.132,
               (0.3, 1.5), tps=2.2, max_tokens=2048)

    def iters(c, t):
        obs = [r.prompt for r in c.reqs if r.t_first <= t]
        obs.extend([4] * min(sum(r.steps_by(t) for r in c.reqs), 6000))
        return obs

    c.iter_fn = iters
    api, core = 1377, 1571
    A, E = f"(APIServer pid={api})", f"(EngineCore_DP0 pid={core})"
    L = [
        (start - 1500.0, f"INFO {ts(start - 1500)} [__init__.py:43] Available plugins for group vllm.platform_plugins:"),
        (start - 1500.0, f"INFO {ts(start - 1500)} [__init__.py:45] - ascend -> vllm_ascend:register"),
        (start - 1500.0, f"INFO {ts(start - 1500)} [__init__.py:234] Platform plugin ascend is activated"),
        (start - 1498.0, f"{A} INFO {ts(start - 1498)} [api_server.py:1947] vLLM API server version 0.19.0"),
        (start - 1498.0, f"{A} INFO {ts(start - 1498)} [utils.py:299] non-default args: {{'model_tag': '/data/models/Qwen3-14B', 'model': '/data/models/Qwen3-14B', 'served_model_name': ['qwen3-14b'], 'max_model_len': 8192, 'speculative_config': {{'model': '/data/models/Qwen3-0.6B', 'method': 'draft_model', 'num_speculative_tokens': 3}}}}"),
        (start - 1490.0, f"{A} INFO {ts(start - 1490)} [model.py:552] Resolved architecture: Qwen3ForCausalLM"),
        (start - 1490.0, f"{A} INFO {ts(start - 1490)} [model.py:1677] Using max model len 8192"),
        (start - 1489.0, f"{A} INFO {ts(start - 1489)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (start - 1480.0, f"{E} INFO {ts(start - 1480)} [core.py:101] Initializing a V1 LLM engine (v0.19.0) with config: model='/data/models/Qwen3-14B', speculative_config=SpeculativeConfig(method='draft_model', model='/data/models/Qwen3-0.6B', num_spec_tokens=3), tokenizer='/data/models/Qwen3-14B', skip_tokenizer_init=False, tokenizer_mode=auto, dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=npu, served_model_name=qwen3-14b, enable_prefix_caching=True, enable_chunked_prefill=True"),
        (start - 1440.0, f"{E} INFO {ts(start - 1440)} [model_runner_v1.py:2712] Loading model weights took 27.5283 GB"),
        (start - 1431.0, f"{E} INFO {ts(start - 1431)} [model_runner_v1.py:2740] Loading drafter model weights took 1.1279 GB"),
        (start - 1420.0, f"{E} INFO {ts(start - 1420)} [worker_v1.py:264] Available KV cache memory: 24.87 GiB"),
        (start - 1420.0, f"{E} INFO {ts(start - 1420)} [kv_cache_utils.py:1313] GPU KV cache size: {blocks * 128:,} tokens, Maximum concurrency for 8,192 tokens per request: {blocks * 128 / 8192:.2f}x"),
        (start - 1390.0, f"{E} INFO {ts(start - 1390)} [model_runner_v1.py:3391] Graph capturing finished in 29 secs, took 0.41 GiB"),
        (start - 1388.0, f"{A} INFO {ts(start - 1388)} [api_server.py:2016] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    L += gen.stats_lines(c, start - 360, start + 600, api, "loggers.py:259", spec_ref="metrics.py:120", prefix=True, mm_line=False)
    L += gen.access_lines(c, api, "/v1/chat/completions")
    L = [(t, l) for t, l in L if t <= start + 600]
    eargs = {"argv": ["/usr/local/python3.11/bin/python3", "/usr/local/python3.11/bin/vllm", "serve", "/data/models/Qwen3-14B",
                      "--served-model-name", "qwen3-14b", "--max-model-len", "8192", "--speculative-config",
                      "{\"model\": \"/data/models/Qwen3-0.6B\", \"method\": \"draft_model\", \"num_speculative_tokens\": 3}"],
             "args": {"model": "/data/models/Qwen3-14B", "served-model-name": "qwen3-14b", "max-model-len": 8192,
                      "speculative-config": {"model": "/data/models/Qwen3-0.6B", "method": "draft_model", "num_speculative_tokens": 3}}}
    gen.write(c, out_dir(cid), server=gen.server_json("0.19.0", "qwen3-14b", "/data/models/Qwen3-14B", 8192, int(start - 1388)),
              engine_args=eargs, model_config=QWEN3_14B, gpu=[], logs=L,
              notes="vllm-ascend 0.19.0rc1 on one Ascend NPU; gsm8k, concurrency 1, 100 requests; with the draft model TPOT 60 ms vs 45 ms without. No NVML on this host.",
              endpoint="http://npu-node-3:8000")


# ------------------------------------------------------------------ case 4: ngram on Llama-3.3-70B TP4, demo api_server (V0 0.6.6.post1)
def case_ngram():
    cid = "zu-ngram-70b-tp4-ttft-115ms-healthy"
    rng = random.Random(1104)
    start = 1737021600.0  # 2025-01-16 10:00 UTC
    blocks = 29968  # per-rank 36.6 GiB / (80 layers * 2 KV heads per rank * 128 * 2 * 2 B * 16 tokens)
    c = Case(cid=cid, version="0.6.6.post1", v0=True, model_name="/llama/Llama-3.3-70B-Instruct",
             model_root="/llama/Llama-3.3-70B-Instruct", max_model_len=131072, start=start, n_scrapes=61, interval=10.0,
             labels_cc={}, pool_tokens=blocks * 16, block_size=16, max_num_seqs=256, tmpl="c-long-context-decode-itl-batch90")
    # ~1.05k-token prompt -> ~0.11 s to the first token; ngram: 1.09 tokens per 19.6 ms step on average
    sequential(c, rng, start - 300, start + 600, (700, 1400), (180, 340), lambda p: 0.02 + p * 0.000088, 0.0196,
               (0.02, 0.10), tps=1.09, max_tokens=4096)
    L = [
        (start - 1500.0, f"INFO {ts(start - 1500)} api_server.py:151] vLLM API server version 0.6.6.post1"),
        (start - 1500.0, f"INFO {ts(start - 1500)} api_server.py:152] args: Namespace(host='0.0.0.0', port=7080, ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, log_level='debug', model='/llama/Llama-3.3-70B-Instruct', dtype='float16', swap_space=16.0, gpu_memory_utilization=0.95, enable_chunked_prefill=True, tensor_parallel_size=4, speculative_model='[ngram]', num_speculative_tokens=3, ngram_prompt_lookup_max=5, ngram_prompt_lookup_min=None, ...)"),
        (start - 1492.0, f"WARNING {ts(start - 1492)} arg_utils.py:1301] Speculative decoding is not supported with chunked prefill for some configurations; proceeding with experimental support."),
        (start - 1492.0, f"INFO {ts(start - 1492)} config.py:1020] Defaulting to use mp for distributed inference"),
        (start - 1492.0, f"INFO {ts(start - 1492)} config.py:1136] Chunked prefill is enabled with max_num_batched_tokens=2048."),
        (start - 1491.0, f"INFO {ts(start - 1491)} llm_engine.py:234] Initializing an LLM engine (v0.6.6.post1) with config: model='/llama/Llama-3.3-70B-Instruct', speculative_config=SpeculativeConfig(draft_model='[ngram]', num_spec_tokens=3), tokenizer='/llama/Llama-3.3-70B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name=/llama/Llama-3.3-70B-Instruct, num_scheduler_steps=1, chunked_prefill_enabled=True, multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=False, mm_processor_kwargs=None, pooler_config=None"),
        (start - 1440.0, f"INFO {ts(start - 1440)} model_runner.py:1099] Loading model weights took 32.8892 GB"),
        (start - 1420.0, f"INFO {ts(start - 1420)} worker.py:241] Memory profiling takes 6.81 seconds"),
        (start - 1420.0, f"INFO {ts(start - 1420)} worker.py:241] the current vLLM instance can use total_gpu_memory (79.11GiB) x gpu_memory_utilization (0.95) = 75.15GiB"),
        (start - 1420.0, f"INFO {ts(start - 1420)} worker.py:241] model weights take 32.89GiB; non_torch_memory takes 2.93GiB; PyTorch activation peak memory takes 2.75GiB; the rest of the memory reserved for KV Cache is 36.58GiB."),
        (start - 1419.0, f"INFO {ts(start - 1419)} distributed_gpu_executor.py:57] # GPU blocks: {blocks}, # CPU blocks: 13107"),
        (start - 1419.0, f"INFO {ts(start - 1419)} distributed_gpu_executor.py:61] Maximum concurrency for 131072 tokens per request: {blocks * 16 / 131072:.2f}x"),
        (start - 1380.0, f"INFO {ts(start - 1380)} model_runner.py:1535] Graph capturing finished in 33 secs, took 0.79 GiB"),
        (start - 1378.0, f"INFO {ts(start - 1378)} launcher.py:19] Available routes are:"),
        (start - 1378.0, f"INFO {ts(start - 1378)} launcher.py:27] Route: /health, Methods: GET"),
        (start - 1378.0, f"INFO {ts(start - 1378)} launcher.py:27] Route: /generate, Methods: POST"),
    ]
    L += v0_stats_lines(c, start - 300, start + 600, "metrics.py:467", spec=("metrics.py:483", 3, 0.45, 0.30))
    L += [(r.t_end + 0.003, f'INFO:     127.0.0.1:{50000 + r.rid} - "POST /generate HTTP/1.1" 200 OK') for r in c.reqs]
    L += [(start + k * 10.0 + 0.002, f'INFO:     10.0.0.5:{43000 + k} - "GET /metrics HTTP/1.1" 404 Not Found') for k in range(61)]
    L = [(t, l) for t, l in sorted(L) if t <= start + 600]
    out = out_dir(cid)
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.dumps({"t": round(start + k * 10.0, 3), "error": "HTTP 404 Not Found"}) for k in range(61)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://gpu-node:7080",
           "started_at": start, "ended_at": start + 600.0, "interval_s": 10.0,
           "notes": "vllm.entrypoints.api_server (demo server, /generate only); benchmark at concurrency 1 with ngram speculation; user asks why mean TTFT is 115 ms with ngram vs 135 ms without."}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps({"version": None, "models": None, "health": 200}, indent=1) + "\n")
    eargs = {"argv": ["python", "-m", "vllm.entrypoints.api_server", "--host=0.0.0.0", "--port=7080",
                      "--model=/llama/Llama-3.3-70B-Instruct", "--tensor-parallel-size=4", "--swap-space=16",
                      "--dtype=float16", "--enable-chunked-prefill=True", "--gpu-memory-utilization=0.95",
                      "--speculative-model=[ngram]", "--ngram-prompt-lookup-max=5", "--num-speculative-tokens=3"],
             "args": {"model": "/llama/Llama-3.3-70B-Instruct", "tensor-parallel-size": 4, "swap-space": 16,
                      "dtype": "float16", "enable-chunked-prefill": True, "gpu-memory-utilization": 0.95,
                      "speculative-model": "[ngram]", "ngram-prompt-lookup-max": 5, "num-speculative-tokens": 3}}
    (out / "engine_args.json").write_text(json.dumps(eargs, indent=1) + "\n")
    (out / "model_config.json").write_text(json.dumps(LLAMA33_70B, indent=1) + "\n")
    devs = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": 81214095360,
             "processes": [{"pid": 90211 + i, "name": "python" if i == 0 else "VllmWorkerProcess", "used_memory": 80693985280}]}
            for i in range(4)]
    (out / "gpu.jsonl").write_text("\n".join(json.dumps({"t": round(start + k * 10.0 + 0.4, 3), "devices": devs}) for k in range(61)) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in L) + "\n")


CASES = {
    "zu-eager-a6000-igx-decode-4x": case_eager,
    "zu-chat-role-chunk-first-itl-healthy": case_role,
    "zu-ascend-draft06b-accept40-tpot60": case_ascend,
    "zu-ngram-70b-tp4-ttft-115ms-healthy": case_ngram,
}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(CASES)):
        CASES[cid]()
        print("wrote", cid)
