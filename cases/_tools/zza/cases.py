"""Build the zza-* bundles: python3 cases/_tools/zza/cases.py [case-id ...] (from the worktree root)."""
from __future__ import annotations

import datetime as dt
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402
import sim  # noqa: E402

ROOT = gen.ROOT
CASES = ROOT / "cases"


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def ts(t: float) -> str:
    return gen.ts(t)


def cc_from(tmpl: str, **kw) -> dict:
    text = json.loads((CASES / tmpl / "bundle" / "metrics.jsonl").read_text().splitlines()[-1])["text"]
    for ln in text.splitlines():
        if ln.startswith("vllm:cache_config_info{"):
            labs = dict(re.findall(r'(\w+)="([^"]*)"', ln[ln.index("{"):ln.rindex("}")]))
            labs.update({k: str(v) for k, v in kw.items()})
            return dict(sorted(labs.items()))
    raise ValueError(tmpl)


def scrapes(s, t0, n, iv, tmpl, base, cc, v0, skip=("spec_decode",)):
    return [{"t": round(t0 + k * iv, 3), "status": 200, "text": sim.scrape(s, t0 + k * iv, tmpl, base, cc, v0, skip)} for k in range(n)]


def llama_cfg(name, layers, heads, kv, hidden, inter, vocab, mpe, theta, extra=None):
    c = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden, "intermediate_size": inter,
         "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": hidden // heads,
         "max_position_embeddings": mpe, "rope_theta": theta, "vocab_size": vocab, "torch_dtype": "bfloat16",
         "rms_norm_eps": 1e-05, "hidden_act": "silu", "tie_word_embeddings": False, "_name_or_path": name}
    c.update(extra or {})
    return c


# --------------------------------------------------------------------------------------------
def tt_n150():
    cid = "zza-tt-n150-gmu005-ministral-preempt"
    tmpl = "b-hybrid-qwen35-block528"  # vLLM 0.19.1 families
    rnd = random.Random(5874)
    t0 = utc(2026, 7, 30, 9, 14, 0)
    reqs, rid = [], 0
    rounds = 9
    for k in range(rounds):
        ta = t0 + 20 + k * 35.0
        for j in range(32):
            reqs.append(sim.R(rid, ta + j * 0.004, rnd.randint(20, 36), rnd.randint(36, 60))); rid += 1
    s = sim.Sim(pool_blocks=135, block=16, max_seqs=32, step_fn=lambda n, pf: 0.055 + 0.0006 * n + 0.00012 * pf, reqs=reqs)
    s.run(t0 + 400)
    iv, n = 5.0, 70
    model = "mistralai/Ministral-8B-Instruct-2410"
    base = {"engine": "0", "model_name": model}
    cc = cc_from(tmpl, gpu_memory_utilization="0.05", num_gpu_blocks="135", enable_prefix_caching="True", block_size="16",
                 kv_cache_memory_bytes="None")
    cc.pop("engine", None)
    cc = {"engine": "0", **cc}
    recs = scrapes(s, t0, n, iv, tmpl, base, cc, False)
    api, core = 41207, 41388
    L = [f"(APIServer pid={api}) INFO {ts(t0 - 95)} [api_server.py:1895] vLLM API server version 0.19.1",
         f"(APIServer pid={api}) INFO {ts(t0 - 95)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 128, 'gpu_memory_utilization': 0.05, 'max_num_seqs': 32}}",
         f"(APIServer pid={api}) INFO {ts(t0 - 94)} [platform.py:82] Platform plugin tt is activated",
         f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 90)} [core.py:97] Initializing a V1 LLM engine (v0.19.1) with config: model='{model}', dtype=torch.bfloat16, max_seq_len=128, tensor_parallel_size=1, device_config=tt, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True",
         f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 60)} [tt_worker.py:212] Model loading took 14.95 GiB",
         f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 41)} [tt_worker.py:298] Available KV cache memory: 0.30 GiB",
         f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 41)} [kv_cache_utils.py:1313] GPU KV cache size: 2,160 tokens, Maximum concurrency for 128 tokens per request: 16.88x",
         f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 12)} [core.py:283] init engine (profile, create kv cache, warmup model) took 48.71 seconds",
         f"(APIServer pid={api}) INFO {ts(t0 - 10)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 135",
         f"(APIServer pid={api}) INFO {ts(t0 - 8)} [api_server.py:1638] Starting vLLM API server 0 on http://0.0.0.0:8000"]
    Lt = []
    for r in reqs:
        Lt.append((r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     127.0.0.1:{47000 + r.rid % 2000} - "POST /v1/completions HTTP/1.1" 200 OK'))
    tb = t0 + 10
    while tb <= t0 + (n - 1) * iv:
        pt, gt, run, wait, use = sim.window_stats(s, tb - 10, tb)
        if pt or gt or run or wait:
            Lt.append((tb, f"(APIServer pid={api}) INFO {ts(tb)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, Avg generation throughput: {gt / 10:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {use:.1f}%, Prefix cache hit rate: 0.0%"))
        tb += 10
    logs = "\n".join(L + [x for _, x in sorted(Lt)]) + "\n"
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0,
           "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
           "notes": "tt-xla nightly benchmark test_vllm_benchmark[ministral-8b] on an n150 runner (no NVML: Tenstorrent device)."}
    server = gen.server_json("0.19.1", model, model, 128, int(t0 - 8))
    ea = {"argv": None, "args": {"model": model, "max-model-len": 128, "gpu-memory-utilization": 0.05, "max-num-seqs": 32}}
    mc = llama_cfg(model, 36, 32, 8, 4096, 12288, 131072, 32768, 100000000.0, {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "sliding_window": None})
    sim.write_bundle(CASES / cid / "bundle", recs, man, server, ea, mc, logs)
    return s


# --------------------------------------------------------------------------------------------
def orin():
    cid = "zza-orin-nx16-qwen2-7b-gguf-killed"
    t0 = utc(2025, 1, 23, 7, 31, 50)
    L = [
        f"INFO {ts(t0)} config.py:1670] Downcasting torch.float32 to torch.float16.",
        f"WARNING {ts(t0)} config.py:395] gguf quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
        f"INFO {ts(t0 + 1)} llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='./Qwen2-7B-Instruct.Q4_K_M.gguf', speculative_config=None, tokenizer='./Qwen2-7B-Instruct.Q4_K_M.gguf', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=200, download_dir=None, load_format=LoadFormat.GGUF, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gguf, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=./Qwen2-7B-Instruct.Q4_K_M.gguf, use_v2_block_manager=True, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=False, mm_processor_kwargs=None)",
        f"INFO {ts(t0 + 9)} model_runner.py:1060] Starting to load model ./Qwen2-7B-Instruct.Q4_K_M.gguf...",
        "/usr/local/lib/python3.10/dist-packages/torch/nested/__init__.py:226: UserWarning: The PyTorch API of nested tensors is in prototype stage and will change in the near future. (Triggered internally at /opt/pytorch/aten/src/ATen/NestedTensorImpl.cpp:178.)",
        "  return _nested.nested_tensor(",
        f"INFO {ts(t0 + 52)} model_runner.py:1071] Loading model weights took 4.3752 GB",
        f"INFO {ts(t0 + 156)} gpu_executor.py:122] # GPU blocks: 11836, # CPU blocks: 4681",
        f"INFO {ts(t0 + 156)} gpu_executor.py:126] Maximum concurrency for 200 tokens per request: 946.88x",
        "Killed",
    ]
    logs = "\n".join(L) + "\n"
    iv, n = 10.0, 24
    recs = [{"t": round(t0 + k * iv, 3), "error": "connection refused: nothing listens on localhost:8000 (offline LLM() script, no API server)"} for k in range(n)]
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0,
           "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
           "notes": "Jetson Orin NX 16G (JetPack 6.2), container dustynv/vllm:0.6.3-r36.4.0; offline LLM(model=..., max_model_len=200, max_num_seqs=1); log is the script's stdout."}
    ea = {"argv": None, "args": {"model": "./Qwen2-7B-Instruct.Q4_K_M.gguf", "max-model-len": 200, "max-num-seqs": 1}}
    mc = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
          "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768,
          "rope_theta": 1000000.0, "sliding_window": 131072, "use_sliding_window": False, "vocab_size": 152064,
          "torch_dtype": "bfloat16", "rms_norm_eps": 1e-06, "tie_word_embeddings": False}
    sim.write_bundle(CASES / cid / "bundle", recs, man, None, ea, mc, logs)


# --------------------------------------------------------------------------------------------
def mi250():
    cid = "zza-mi250-llama31-8b-6toks"
    tmpl = "zp-client-cap-100-of-200-users"  # vLLM 0.6.1.post2 (V0) families
    rnd = random.Random(8698)
    t0 = utc(2024, 9, 20, 14, 2, 0)
    reqs, rid, ta = [], 0, t0 + 15
    while ta < t0 + 560:
        reqs.append(sim.R(rid, ta, rnd.randint(300, 900), rnd.randint(200, 400))); rid += 1
        ta += rnd.uniform(25, 70)
    s = sim.Sim(pool_blocks=21240, block=16, max_seqs=1024,
                step_fn=lambda n, pf: 0.185 + 0.01 * (n - 1) + 0.0009 * pf + rnd.uniform(-0.01, 0.03), reqs=reqs)
    s.run(t0 + 900)
    iv, n = 10.0, 61
    model = "meta-llama/Meta-Llama-3.1-8B-Instruct"
    base = {"model_name": model}
    cc = cc_from(tmpl, num_gpu_blocks="21240", num_cpu_blocks="2048", gpu_memory_utilization="0.9", enable_prefix_caching="False")
    recs = scrapes(s, t0, n, iv, tmpl, base, cc, True)
    L = [f"INFO {ts(t0 - 140)} api_server.py:459] vLLM API server version 0.6.1.post2",
         f"INFO {ts(t0 - 140)} api_server.py:460] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', model='{model}', tokenizer='{model}', trust_remote_code=True, dtype='auto', kv_cache_dtype='auto', max_model_len=None, tensor_parallel_size=1, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=1024, max_num_seqs=1024, disable_log_stats=False, enforce_eager=False, enable_chunked_prefill=None, disable_log_requests=False)",
         f"WARNING {ts(t0 - 136)} arg_utils.py:930] Chunked prefill is enabled by default for models with max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter any issues, please disable chunked prefill by setting --enable-chunked-prefill=False.",
         f"INFO {ts(t0 - 136)} config.py:1010] Chunked prefill is enabled with max_num_batched_tokens=1024.",
         f"INFO {ts(t0 - 136)} llm_engine.py:232] Initializing an LLM engine (v0.6.1.post2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=True, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={model}, use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=True)",
         f"INFO {ts(t0 - 130)} selector.py:116] Using ROCmFlashAttention backend.",
         f"INFO {ts(t0 - 129)} model_runner.py:997] Starting to load model {model}...",
         f"INFO {ts(t0 - 128)} selector.py:116] Using ROCmFlashAttention backend.",
         f"INFO {ts(t0 - 96)} model_runner.py:1008] Loading model weights took 14.9888 GB",
         f"INFO {ts(t0 - 71)} gpu_executor.py:122] # GPU blocks: 21240, # CPU blocks: 2048",
         f"INFO {ts(t0 - 70)} model_runner.py:1311] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
         f"INFO {ts(t0 - 70)} model_runner.py:1315] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
         f"INFO {ts(t0 - 31)} model_runner.py:1430] Graph capturing finished in 39 secs.",
         f"INFO {ts(t0 - 29)} api_server.py:224] vLLM to use /tmp/tmpk2v8x1q0 as PROMETHEUS_MULTIPROC_DIR",
         f"INFO {ts(t0 - 28)} launcher.py:19] Available routes are:",
         "INFO:     Started server process [3817]",
         "INFO:     Waiting for application startup.",
         "INFO:     Application startup complete.",
         "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"]
    Lt = []
    for r in reqs:
        if r.t_arr > t0 + (n - 1) * iv:
            continue
        Lt.append((r.t_arr + 0.001, f"INFO {ts(r.t_arr)} logger.py:36] Received request chat-{rid_hex(r.rid)}: prompt: '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\n...', params: SamplingParams(n=1, best_of=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=1.0, top_k=-1, min_p=0.0, seed=None, use_beam_search=False, length_penalty=1.0, early_stopping=False, stop=[], stop_token_ids=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens={131072 - r.prompt}, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None), prompt_token_ids: [128000, 128006, 882, 128007, 271, ...], lora_request: None, prompt_adapter_request: None."))
        Lt.append((r.t_arr + 0.002, f'INFO:     10.8.0.{21 + r.rid % 3}:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        Lt.append((r.t_arr + 0.003, f"INFO {ts(r.t_arr)} engine.py:288] Added request chat-{rid_hex(r.rid)}."))
        if 0 <= r.t_end <= t0 + (n - 1) * iv:
            Lt.append((r.t_end, f"INFO {ts(r.t_end)} metrics.py:351] Finished request chat-{rid_hex(r.rid)}.") if False else (r.t_end, ""))
    tb = t0 + 5
    while tb <= t0 + (n - 1) * iv:
        pt, gt, run, wait, use = sim.window_stats(s, tb - 5, tb)
        if pt or gt or run or wait:
            Lt.append((tb, f"INFO {ts(tb)} metrics.py:351] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {use:.1f}%, CPU KV cache usage: 0.0%."))
        tb += 5
    logs = "\n".join(L + [x for _, x in sorted(Lt) if x]) + "\n"
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0,
           "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
           "notes": "AMD MI250 (one GCD), ROCm 6.1.2, vLLM built from source at main 1c1bb388; chat traffic from an internal client. No NVML on ROCm."}
    server = gen.server_json("0.6.1.post2", model, model, 131072, int(t0 - 28))
    ea = {"argv": ["vllm", "serve", model, "--trust-remote-code", "--tokenizer", model, "--max-num-seqs", "1024", "--max-num-batched-tokens", "1024"],
          "args": {"model": model, "trust-remote-code": True, "tokenizer": model, "max-num-seqs": 1024, "max-num-batched-tokens": 1024}}
    mc = llama_cfg(model, 32, 32, 8, 4096, 14336, 128256, 131072, 500000.0,
                   {"rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009]})
    sim.write_bundle(CASES / cid / "bundle", recs, man, server, ea, mc, logs)
    return s


def rid_hex(i: int) -> str:
    import hashlib
    return hashlib.md5(str(i).encode()).hexdigest()


# --------------------------------------------------------------------------------------------
def mi50():
    cid = "zza-mi50-tp2-hermes8b-tpot353"
    tmpl = "c-long-prompt-hol-short-chats"  # vLLM 0.9.2 families
    rnd = random.Random(16)
    t0 = utc(2025, 7, 16, 10, 40, 0)
    tb0 = t0 + 62
    outs = [690, 372, 248, 201, 186, 164, 140, 115, 95, 67]  # sum 2278
    prompts = [131, 152, 118, 160, 127, 145, 139, 122, 141, 134]  # sum 1369
    reqs = [sim.R(i, tb0 + i * 0.003, prompts[i], outs[i], reason="stop" if outs[i] < 690 else "length") for i in range(10)]
    # one 1-token warm-up request of benchmark_serving before the run
    s = sim.Sim(pool_blocks=5785, block=16, max_seqs=256,
                step_fn=lambda n, pf: (0.15 + 0.0023 * pf if pf > 0 else 0.300 + 0.0052 * n + rnd.uniform(-0.02, 0.06)), reqs=reqs)
    s.run(t0 + 600)
    iv, n = 10.0, 37
    model = "NousResearch/Hermes-3-Llama-3.1-8B"
    base = {"engine": "0", "model_name": model}
    cc = cc_from(tmpl, num_gpu_blocks="5785", gpu_memory_utilization="0.95", enable_prefix_caching="True")
    cc.pop("engine", None)
    cc = {"engine": "0", **cc}
    recs = scrapes(s, t0, n, iv, tmpl, base, cc, False)
    w = [f"INFO {ts(t0 - 300)} [__init__.py:244] Automatically detected platform rocm.",
         f"INFO {ts(t0 - 297)} [api_server.py:1395] vLLM API server version 0.9.2",
         f"INFO {ts(t0 - 297)} [cli_args.py:325] non-default args: {{'model': '{model}', 'disable_log_requests': True, 'max_model_len': 86000, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95}}",
         f"INFO {ts(t0 - 290)} [config.py:841] This model supports multiple tasks: {{'classify', 'reward', 'embed', 'generate'}}. Defaulting to 'generate'.",
         f"INFO {ts(t0 - 290)} [config.py:1472] Using max model len 86000",
         f"INFO {ts(t0 - 290)} [config.py:2285] Chunked prefill is enabled with max_num_batched_tokens=2048.",
         f"INFO {ts(t0 - 284)} [core.py:526] Waiting for init message from front-end.",
         f"INFO {ts(t0 - 284)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=86000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None",
         f"INFO {ts(t0 - 280)} [rocm.py:224] Using Triton Attention backend on V1 engine.",
         f"(VllmWorker rank=0 pid=2213) INFO {ts(t0 - 230)} [gpu_model_runner.py:1801] Model loading took 7.5123 GiB and 48.221018 seconds",
         f"(VllmWorker rank=1 pid=2214) INFO {ts(t0 - 230)} [gpu_model_runner.py:1801] Model loading took 7.5123 GiB and 48.509230 seconds",
         f"(VllmWorker rank=0 pid=2213) INFO {ts(t0 - 150)} [gpu_worker.py:232] Available KV cache memory: 5.65 GiB",
         f"(VllmWorker rank=1 pid=2214) INFO {ts(t0 - 150)} [gpu_worker.py:232] Available KV cache memory: 5.65 GiB",
         f"INFO {ts(t0 - 149)} [kv_cache_utils.py:716] GPU KV cache size: 92,560 tokens",
         f"INFO {ts(t0 - 149)} [kv_cache_utils.py:720] Maximum concurrency for 86,000 tokens per request: 1.08x",
         f"(VllmWorker rank=0 pid=2213) INFO {ts(t0 - 91)} [gpu_model_runner.py:2326] Graph capturing finished in 58 secs, took 0.41 GiB",
         f"INFO {ts(t0 - 90)} [core.py:172] init engine (profile, create kv cache, warmup model) took 139.77 seconds",
         f"INFO {ts(t0 - 88)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000",
         "INFO:     Started server process [2101]",
         "INFO:     Waiting for application startup.",
         "INFO:     Application startup complete."]
    Lt = [(r.t_arr + 0.002, f'INFO:     127.0.0.1:{50310 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    tb = t0 + 10
    while tb <= t0 + (n - 1) * iv:
        pt, gt, run, wait, use = sim.window_stats(s, tb - 10, tb)
        if pt or gt or run or wait:
            Lt.append((tb, f"INFO {ts(tb)} [loggers.py:118] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, Avg generation throughput: {gt / 10:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {use:.1f}%, Prefix cache hit rate: 0.0%"))
        tb += 10
    logs = "\n".join(w + [x for _, x in sorted(Lt)]) + "\n"
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0,
           "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
           "notes": "2x AMD MI50 16G (gfx906) in a Lenovo x3650 M5, nlzy/vllm-gfx906 build; benchmark_serving, 10 prompts, request rate inf. No NVML on ROCm."}
    server = gen.server_json("0.9.2", model, model, 86000, int(t0 - 88))
    ea = {"argv": ["vllm", "serve", model, "--disable-log-requests", "--tensor-parallel-size", "2", "--gpu-memory-utilization=0.95", "--max-model-len=86000"],
          "args": {"model": model, "disable-log-requests": True, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.95, "max-model-len": 86000}}
    mc = llama_cfg(model, 32, 32, 8, 4096, 14336, 128256, 131072, 500000.0,
                   {"rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}})
    sim.write_bundle(CASES / cid / "bundle", recs, man, server, ea, mc, logs)
    return s


BUILD = {"zza-tt-n150-gmu005-ministral-preempt": tt_n150, "zza-orin-nx16-qwen2-7b-gguf-killed": orin,
         "zza-mi250-llama31-8b-6toks": mi250, "zza-mi50-tp2-hermes8b-tpot353": mi50}

if __name__ == "__main__":
    for k in (sys.argv[1:] or BUILD):
        s = BUILD[k]()
        if s is not None:
            done = [r for r in s.reqs if r.t_end >= 0]
            itl = [b - a for r in s.reqs for a, b in zip(r.tok_t, r.tok_t[1:])]
            print(k, "reqs", len(s.reqs), "done", len(done), "preempt", len(s.preempt_t),
                  "maxused", max(x[3] for x in s.steps), "/", s.pool_blocks,
                  "ttft_mean %.2f" % (sum(r.t_first - r.t_arr for r in done) / max(1, len(done))),
                  "itl_mean %.3f" % (sum(itl) / max(1, len(itl))),
                  "last_end %.0f" % (max(r.t_end for r in done) - min(r.t_arr for r in s.reqs)))
        else:
            print(k, "written")
