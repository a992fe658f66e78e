"""Build the zo-* bundles:  python cases/_tools/zo/cases.py [case-id ...]   (from the worktree root;
needs prometheus_client, e.g. /work/main/.venv/bin/python).

Each case: a request list -> gen.Engine.run -> steps; metrics.jsonl, logs.txt and the rest are
computed from those steps.  Numbers that the sources do not give are listed under `assumed:` in
each case.yaml.
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Engine, Req, ROOT, ts  # noqa: E402

GiB = 1 << 30
MiB = 1 << 20
SPECS = Path(__file__).resolve().parent / "specs"


def spec(cid: str) -> list:
    return json.loads((SPECS / f"{cid}.json").read_text())


def v0_metric_request(c: dict, t: float, steps, reqs, eng: Engine, mode: str, last_log) -> dict:
    """Values an engine would have pushed to prometheus by time t (LLMEngine._get_stats semantics)."""
    g = gen.gauges_at(steps, t, eng.num_blocks)
    k = gen.counters_at(steps, t)
    first = [r for r in reqs if r.t_first is not None and r.t_first <= t]
    done = [r for r in reqs if r.t_end is not None and r.t_end <= t]
    tpot = [lat for r in reqs for (tt, lat) in r.tpot if tt <= t]
    gauges = {"vllm:num_requests_running": g["run"], "vllm:num_requests_waiting": g["wait"],
              "vllm:num_requests_swapped": 0, "vllm:gpu_cache_usage_perc": g["usage"],
              "vllm:cpu_cache_usage_perc": 0.0}
    hists = {"vllm:time_to_first_token_seconds": [r.t_first - r.t_arr for r in first],
             "vllm:time_per_output_token_seconds": tpot,
             "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arr for r in done],
             "vllm:request_prompt_tokens": [r.prompt for r in done],
             "vllm:request_generation_tokens": [r.gen for r in done],
             "vllm:request_params_n": [1 for _ in done]}
    if mode == "default":  # 0.5.0
        hists["vllm:request_params_best_of"] = [1 for _ in done]
    else:
        gauges["vllm:cpu_prefix_cache_hit_rate"] = -1.0
        gauges["vllm:gpu_prefix_cache_hit_rate"] = -1.0
        hists.update({
            "vllm:iteration_tokens_total": k["iter"],
            "vllm:request_queue_time_seconds": [r.t_sched - r.t_arr for r in done],
            "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
            "vllm:request_prefill_time_seconds": [r.t_first - r.t_sched for r in done],
            "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
            "vllm:time_in_queue_requests": [r.t_sched - r.t_arr for r in done],
            "vllm:request_max_num_generation_tokens": [r.max_tokens for r in done],
            "vllm:request_params_max_tokens": [r.max_tokens for r in done],
        })
    lp = [p for p in last_log if p["t"] <= t]
    if lp and "vllm:avg_prompt_throughput_toks_per_s" in {f["name"] for f in c["spec"]}:
        gauges["vllm:avg_prompt_throughput_toks_per_s"] = lp[-1]["pt"]
        gauges["vllm:avg_generation_throughput_toks_per_s"] = lp[-1]["gt"]
    succ = {}
    for r in done:
        succ[r.reason] = succ.get(r.reason, 0) + 1
    last_step = max((s.t1 for s in steps if s.t1 <= t), default=None)
    return {"mode": mode, "spec": c["spec"], "labels": {"model_name": c["served"]}, "gauges": gauges,
            "counters": {"vllm:num_preemptions_total": k["preempt"], "vllm:prompt_tokens_total": k["prompt"],
                         "vllm:generation_tokens_total": k["gen"]},
            "success": succ, "hists": hists, "info": c["cc_info"], "created": c["created"],
            "lora_ts": last_step}


def scrapes(c: dict, steps, reqs, eng: Engine, mode: str, logpts, proc=None) -> list[dict]:
    recs = []
    for i in range(c["n"]):
        t = c["t0"] + i * c["iv"]
        text = gen.render(v0_metric_request(c, t, steps, reqs, eng, mode, logpts), c["prom"])
        if proc is not None:
            text = proc(t, i) + text
        recs.append({"t": round(t, 3), "status": 200, "text": text})
    return recs


def gpu_recs(c: dict, devs_fn) -> list[dict]:
    return [{"t": round(c["t0"] + i * c["iv"] + 0.35, 3), "devices": devs_fn(c["t0"] + i * c["iv"])} for i in range(c["n"])]


def manifest(c: dict, notes: str) -> dict:
    return {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": c["endpoint"],
            "started_at": c["t0"], "ended_at": c["t0"] + (c["n"] - 1) * c["iv"], "interval_s": c["iv"], "notes": notes}


def access(reqs, t_lo, t_hi, path, ip="127.0.0.1", base_port=40000):
    return [(r.t_arr + 0.001, f'INFO:     {ip}:{base_port + r.rid % 20000} - "POST {path} HTTP/1.1" 200 OK')
            for r in reqs if t_lo <= r.t_arr <= t_hi]


# ======================================================================================= case A
def case_a() -> None:
    cid = "zo-ngram-k8-qwen15-1p8b-a100"
    rnd = random.Random(6494)
    path = "/home/Qwen1.5-1.8B-Chat"
    # KV: Qwen1.5-1.8B, 24 layers x 16 KV heads x 128 x 2 (K,V) x 2 B = 196,608 B per token, 3 MiB per block
    bpt = 24 * 16 * 128 * 2 * 2
    block = bpt * 16
    total = int(79.15 * GiB)
    peak = int(4.72 * GiB)  # 3.43 GiB weights + profiling activations of 32,768 tokens
    nblocks = int((total * 0.5 - peak) // block)
    ncpu = int(4 * GiB // block)
    t_boot = 1721206800.0  # 2024-07-17 09:00:00 UTC
    t_bench = t_boot + 180.0
    reqs, t, i = [], t_bench, 0
    while i < 2000:
        p = rnd.randint(150, 450)
        o = max(6, min(256, int(rnd.gauss(60, 24))))
        reqs.append(Req(i, t, p, o, 256))
        t += rnd.expovariate(5.1)
        i += 1

    def step_time(pt, nd, ctx, r):
        if pt:  # V0: prefill-only step
            return 0.034 + 3e-5 * pt + r.uniform(0, 0.002)
        return 0.0218 + 0.0006 * nd + r.uniform(0, 0.002)  # scoring 9 tokens per sequence (k=8) + n-gram proposer

    def accept(r):
        a = 0
        while a < 8 and r.random() < 0.51:
            a += 1
        return a

    eng = Engine(mode="v0", max_num_seqs=256, budget=32768, num_blocks=nblocks, step_time=step_time,
                 spec_k=8, spec_p=0.58, spec_accept=accept, seed=11)
    steps = eng.run(reqs)
    logpts = gen.log_points(steps)
    c = {"cid": cid, "served": path, "t0": t_bench + 20.0, "iv": 10.0, "n": 36, "endpoint": "http://localhost:8000",
         "spec": spec(cid), "created": t_boot + 41.37, "prom": "0.20.0",
         "cc_info": {"block_size": "16", "gpu_memory_utilization": "0.5", "swap_space_bytes": str(4 * GiB),
                     "num_gpu_blocks_override": "None", "cache_dtype": "auto", "sliding_window": "None",
                     "enable_prefix_caching": "True", "num_gpu_blocks": str(nblocks), "num_cpu_blocks": str(ncpu)}}

    def proc(t, i):
        return gen.process_block(t, t_boot + 0.42, rss=int(2.61 * GiB + i * 1.3 * MiB), vms=int(31.2 * GiB),
                                 cpu=212.4 + (t - t_boot - 200) * 0.93, fds=61 + (i % 5), gc=(1210344 + i * 4105, 0, 0))
    recs = scrapes(c, steps, reqs, eng, "default", logpts, proc)
    # ---- logs
    L = []
    tb = t_boot
    L.append((tb, f"INFO {ts(tb)} api_server.py:177] vLLM API server version 0.5.0"))
    L.append((tb + 0.001, f"INFO {ts(tb)} api_server.py:178] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='{path}', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=True, disable_sliding_window=False, use_v2_block_manager=True, num_lookahead_slots=0, seed=0, swap_space=4, gpu_memory_utilization=0.5, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, device='auto', image_input_type=None, image_token_id=None, image_input_shape=None, image_feature_size=None, image_processor=None, image_processor_revision=None, disable_image_processor=False, scheduler_delay_factor=0.0, enable_chunked_prefill=False, speculative_model='[ngram]', num_speculative_tokens=8, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=8, ngram_prompt_lookup_min=2, model_loader_extra_config=None, preemption_mode=None, served_model_name=None, qlora_adapter_name_or_path=None, engine_use_ray=False, disable_log_requests=False, max_log_len=None)"))
    L.append((tb + 2.1, f"INFO {ts(tb + 2.1)} llm_engine.py:161] Initializing an LLM engine (v0.5.0) with config: model='{path}', speculative_config=SpeculativeConfig(draft_model='[ngram]', num_spec_tokens=8), tokenizer='{path}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={path})"))
    L.append((tb + 2.9, f"INFO {ts(tb + 2.9)} spec_decode_worker.py:110] Configuring SpecDecodeWorker with proposer=<class 'vllm.spec_decode.ngram_worker.NGramWorker'>"))
    L.append((tb + 9.6, f"INFO {ts(tb + 9.6)} model_runner.py:159] Loading model weights took 3.4300 GB"))
    L.append((tb + 12.8, f"INFO {ts(tb + 12.8)} gpu_executor.py:83] # GPU blocks: {nblocks}, # CPU blocks: {ncpu}"))
    L.append((tb + 13.9, f"INFO {ts(tb + 13.9)} model_runner.py:878] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."))
    L.append((tb + 13.91, f"INFO {ts(tb + 13.91)} model_runner.py:882] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."))
    L.append((tb + 26.4, f"INFO {ts(tb + 26.4)} model_runner.py:954] Graph capturing finished in 12 secs."))
    L.append((tb + 41.3, "INFO:     Started server process [412]"))
    L.append((tb + 41.31, "INFO:     Waiting for application startup."))
    L.append((tb + 41.32, "INFO:     Application startup complete."))
    L.append((tb + 41.33, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"))
    for p in logpts:
        L.append((p["t"], f"INFO {ts(p['t'])} metrics.py:341] Avg prompt throughput: {p['pt']:.1f} tokens/s, Avg generation throughput: {p['gt']:.1f} tokens/s, Running: {p['run']} reqs, Swapped: 0 reqs, Pending: {p['wait']} reqs, GPU KV cache usage: {100 * p['usage'] / nblocks:.1f}%, CPU KV cache usage: 0.0%."))
        if p["dr"]:
            acc, dr, em = p["acc"], p["dr"], p["em"]
            L.append((p["t"] + 1e-4, f"INFO {ts(p['t'])} metrics.py:362] Speculative metrics: Draft acceptance rate: {acc / dr:.3f}, System efficiency: {em / (dr / 8 * 9):.3f}, Number of speculative tokens: 8, Number of accepted tokens: {acc}, Number of draft tokens tokens: {dr}, Number of emitted tokens tokens: {em}."))
    L += access(reqs, t_bench - 1, c["t0"] + c["n"] * c["iv"], "/v1/completions")
    t_end_log = c["t0"] + (c["n"] - 1) * c["iv"] + 5
    L = [x for x in L if x[0] <= t_end_log]
    used = int(total * 0.5) + int(1.31 * GiB) + 520 * MiB

    def devs(t):
        return [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": used,
                 "processes": [{"pid": 412, "name": "python3", "used_memory": used - 520 * MiB}]},
                {"index": 1, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": 4 * MiB, "processes": []}]
    cfg = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
           "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 5504,
           "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 16,
           "num_hidden_layers": 24, "num_key_value_heads": 16, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
           "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.37.0",
           "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
    args = {"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", path, "--gpu-memory-utilization", "0.5",
                     "--enable-prefix-caching", "--speculative-model", "[ngram]", "--num-speculative-tokens", "8",
                     "--use-v2-block-manager", "--ngram-prompt-lookup-max", "8", "--ngram-prompt-lookup-min", "2"],
            "args": {"model": path, "gpu-memory-utilization": 0.5, "enable-prefix-caching": True, "speculative-model": "[ngram]",
                     "num-speculative-tokens": 8, "use-v2-block-manager": True, "ngram-prompt-lookup-max": 8, "ngram-prompt-lookup-min": 2}}
    server = {"version": {"version": "0.5.0"}, "models": gen.models_json(path, path, None, int(c["t0"]), with_root=True), "health": 200}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest=manifest(c, "Qwen1.5-1.8B-Chat on one A100 with n-gram speculation (k=8) during a 2000-request benchmark; recorded while the client measured tpot 21.7 ms (14.5 ms without speculation)."),
                     records=recs, server=server, engine_args=args, model_config=cfg, gpu=gpu_recs(c, devs), logs=L)
    summarize(cid, steps, reqs, c)


def capture_sizes(max_num_seqs: int) -> list:
    sizes = [1, 2, 4] + [8 * i for i in range(1, 1025)]
    top = [x for x in sizes if x >= max_num_seqs][0]
    return sorted([x for x in sizes if x <= top], reverse=True)


def v0_stats_lines(logpts, lineno: str, nblocks: int, prefix: str = "") -> list:
    return [(p["t"], f"{prefix}INFO {ts(p['t'])} metrics.py:{lineno}] Avg prompt throughput: {p['pt']:.1f} tokens/s, Avg generation throughput: {p['gt']:.1f} tokens/s, Running: {p['run']} reqs, Swapped: 0 reqs, Pending: {p['wait']} reqs, GPU KV cache usage: {100 * p['usage'] / nblocks:.1f}%, CPU KV cache usage: 0.0%.")
            for p in logpts]


# ======================================================================================= case B
def case_b() -> None:
    cid = "zo-v070-ttft-3x-4k-chunk2048"
    rnd = random.Random(14845)
    model = "/export/content/data/tmp/custom_model_path/proxima/model_resources"
    tok = "/export/content/data/tmp/custom_model_path/proxima/tokenizer_resources"
    bpt = 32 * 8 * 128 * 2 * 2  # Llama-3-8B bf16: 131,072 B per token
    block = bpt * 16
    total = int(79.11 * GiB)
    weights = int(14.96 * GiB)
    kv = int(total * 0.9) - weights - int(4.30 * GiB)
    nblocks = kv // block
    ncpu = int(4 * GiB // block)
    t_boot = 1741942800.0  # 2025-03-14 09:00:00 UTC
    t_bench = t_boot + 240.0
    reqs, t, i = [], t_bench, 0
    while t < t_bench + 760:
        reqs.append(Req(i, t, rnd.randint(3900, 4200), 100, 100))
        t += rnd.expovariate(1.2)
        i += 1

    def step_time(pt, nd, ctx, r):
        s = 0.0095 + 0.00018 * nd + r.uniform(0, 0.0006)
        if pt:
            s += 0.006 + pt * 6.9e-5 + r.uniform(0, 0.004)  # a 2048-token chunk: ~0.15 s (3x what this GPU needs)
        return s

    eng = Engine(mode="v0chunk", max_num_seqs=256, budget=2048, num_blocks=nblocks, step_time=step_time, seed=7)
    steps = eng.run(reqs)
    logpts = gen.log_points(steps)
    c = {"cid": cid, "served": model, "t0": t_bench + 60.0, "iv": 10.0, "n": 61, "endpoint": "http://localhost:8000",
         "spec": spec(cid), "created": t_boot + 60.0, "prom": "0.21.1",
         "cc_info": {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space_bytes": str(4 * GiB),
                     "num_gpu_blocks_override": "None", "cache_dtype": "auto", "is_attention_free": "False",
                     "sliding_window": "None", "enable_prefix_caching": "False", "cpu_offload_gb": "0",
                     "calculate_kv_scales": "False", "num_gpu_blocks": str(nblocks), "num_cpu_blocks": str(ncpu)}}
    recs = scrapes(c, steps, reqs, eng, "mp", logpts)
    cap = capture_sizes(256)
    tb = t_boot
    L = [(tb, f"INFO {ts(tb)} api_server.py:835] vLLM API server version 0.7.0"),
         (tb + 0.001, f"INFO {ts(tb)} api_server.py:836] args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, enable_reasoning=False, reasoning_parser=None, tool_call_parser=None, tool_parser_plugin='', model='{model}', task='auto', tokenizer='{tok}', skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=True, allowed_local_media_path=None, download_dir=None, load_format='auto', config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', kv_cache_dtype='auto', max_model_len=None, guided_decoding_backend='outlines', logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=None, enable_prefix_caching=None, disable_sliding_window=False, use_v2_block_manager=True, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=2048, max_num_seqs=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=False, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', num_scheduler_steps=1, multi_step_stream_outputs=True, scheduler_delay_factor=0.0, enable_chunked_prefill=True, speculative_model=None, speculative_model_quantization=None, num_speculative_tokens=None, speculative_disable_mqa_scorer=False, speculative_draft_tensor_parallel_size=None, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=None, ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None, disable_logprobs_during_spec_decoding=None, model_loader_extra_config=None, ignore_patterns=[], preemption_mode=None, served_model_name=None, qlora_adapter_name_or_path=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, scheduling_policy='fcfs', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', generation_config=None, override_generation_config=None, enable_sleep_mode=False, calculate_kv_scales=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, dispatch_function=<function serve at 0x7f2b6c1d3d80>)"),
         (tb + 0.3, f"INFO {ts(tb + 0.3)} api_server.py:203] Started engine process with PID 1877"),
         (tb + 6.2, f"INFO {ts(tb + 6.2)} config.py:1483] Chunked prefill is enabled with max_num_batched_tokens=2048."),
         (tb + 6.9, f"INFO {ts(tb + 6.9)} llm_engine.py:232] Initializing an LLM engine (v0.7.0) with config: model='{model}', speculative_config=None, tokenizer='{tok}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":{json.dumps(cap, separators=(',', ':'))},\"max_capture_size\":256}}, use_cached_outputs=True, "),
         (tb + 8.4, f"INFO {ts(tb + 8.4)} cuda.py:225] Using Flash Attention backend."),
         (tb + 9.1, f"INFO {ts(tb + 9.1)} model_runner.py:1110] Starting to load model {model}..."),
         (tb + 21.7, f"INFO {ts(tb + 21.7)} model_runner.py:1115] Loading model weights took 14.9596 GB"),
         (tb + 24.0, f"INFO {ts(tb + 24.0)} worker.py:266] Memory profiling takes 2.11 seconds\nthe current vLLM instance can use total_gpu_memory (79.11GiB) x gpu_memory_utilization (0.90) = 71.20GiB\nmodel weights take 14.96GiB; non_torch_memory takes 0.34GiB; PyTorch activation peak memory takes 3.96GiB; the rest of the memory reserved for KV Cache is {kv / GiB:.2f}GiB."),
         (tb + 24.2, f"INFO {ts(tb + 24.2)} executor_base.py:108] # CUDA blocks: {nblocks}, # CPU blocks: {ncpu}"),
         (tb + 24.21, f"INFO {ts(tb + 24.21)} executor_base.py:113] Maximum concurrency for 8192 tokens per request: {nblocks * 16 / 8192:.2f}x"),
         (tb + 26.5, f"INFO {ts(tb + 26.5)} model_runner.py:1430] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."),
         (tb + 44.1, f"INFO {ts(tb + 44.1)} model_runner.py:1558] Graph capturing finished in 18 secs, took 0.36 GiB"),
         (tb + 44.2, f"INFO {ts(tb + 44.2)} llm_engine.py:429] init engine (profile, create kv cache, warmup model) took 22.53 seconds"),
         (tb + 45.0, f"INFO {ts(tb + 45.0)} launcher.py:19] Available routes are:"),
         (tb + 45.2, "INFO:     Started server process [1805]"),
         (tb + 45.21, "INFO:     Waiting for application startup."),
         (tb + 45.22, "INFO:     Application startup complete."),
         (tb + 45.23, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    L += v0_stats_lines(logpts, "453", nblocks)
    L += access(reqs, t_bench - 1, c["t0"] + c["n"] * c["iv"], "/v1/completions")
    t_end_log = c["t0"] + (c["n"] - 1) * c["iv"] + 5
    L = [x for x in L if x[0] <= t_end_log]
    used = int(total * 0.9) + 540 * MiB

    def devs(t):
        return [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": used,
                 "processes": [{"pid": 1877, "name": "python3", "used_memory": used - 540 * MiB}]}]
    cfg = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
           "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
           "intermediate_size": 14336, "max_position_embeddings": 8192, "mlp_bias": False, "model_type": "llama",
           "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
           "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": False,
           "torch_dtype": "bfloat16", "transformers_version": "4.46.0", "use_cache": True, "vocab_size": 128256}
    argv = ["vllm", "serve", model, "--tokenizer", tok, "--tensor-parallel-size", "1", "--max-num-batched-tokens", "2048",
            "--gpu-memory-utilization", "0.9", "--enable-chunked-prefill", "--use-v2-block-manager", "--trust-remote-code",
            "--guided-decoding-backend", "outlines"]
    args = {"argv": argv, "args": {"tokenizer": tok, "tensor-parallel-size": 1, "max-num-batched-tokens": 2048,
                                   "gpu-memory-utilization": 0.9, "enable-chunked-prefill": True, "use-v2-block-manager": True,
                                   "trust-remote-code": True, "guided-decoding-backend": "outlines"}}
    server = {"version": {"version": "0.7.0"}, "models": gen.models_json(model, model, 8192, int(c["t0"])), "health": 200}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest=manifest(c, "Llama3-8B based model on vLLM 0.7.0 (upgraded from 0.6.1.post2) during benchmark_serving at 1.2 req/s, 4K-token prompts, 100 output tokens; TTFT went from 0.13 s to 0.39 s after the upgrade."),
                     records=recs, server=server, engine_args=args, model_config=cfg, gpu=gpu_recs(c, devs), logs=L)
    summarize(cid, steps, reqs, c)



# ======================================================================================= case C
def case_c() -> None:
    cid = "zo-v064-70b-fp8-8k-tpot-regress"
    rnd = random.Random(11912)
    model = "/models/llama3.1-70b-instruct-fp8-dynamic"
    served = "llama3.1-70b-instruct"
    bpt_gpu = 80 * 2 * 4 * 128 * 2  # Llama-3.1-70B, TP=2: 4 KV heads per GPU, bf16 KV: 163,840 B per token per GPU
    block = bpt_gpu * 16
    total = int(79.11 * GiB)
    weights = int(33.88 * GiB)
    kv = int(total * 0.96) - weights - int(5.20 * GiB)
    nblocks = kv // block
    ncpu = int(4 * GiB // block)
    t_boot = 1736413200.0  # 2025-01-09 09:00:00 UTC
    t_bench = t_boot + 300.0
    reqs, t, i = [], t_bench, 0
    while t < t_bench + 900:
        reqs.append(Req(i, t, rnd.randint(7000, 9000), rnd.randint(250, 450), 1024))
        t += rnd.expovariate(0.1)
        i += 1

    def step_time(pt, nd, ctx, r):
        s = 0.0226 + 0.0003 * nd + 2e-8 * ctx + r.uniform(0, 0.0012)  # decode step, the slow part (~24.5 ms)
        if pt:
            s += 0.020 + pt * 1.05e-4 + r.uniform(0, 0.01)  # a 4096-token chunk: ~0.45 s
        return s

    eng = Engine(mode="v0chunk", max_num_seqs=256, budget=4096, num_blocks=nblocks, step_time=step_time, seed=3)
    steps = eng.run(reqs)
    logpts = gen.log_points(steps)
    c = {"cid": cid, "served": served, "t0": t_bench + 120.0, "iv": 10.0, "n": 61, "endpoint": "http://llama70b-replica-0:8000",
         "spec": spec(cid), "created": t_boot + 70.0, "prom": "0.21.0",
         "cc_info": {"block_size": "16", "gpu_memory_utilization": "0.96", "swap_space_bytes": str(4 * GiB),
                     "num_gpu_blocks_override": "None", "cache_dtype": "auto", "is_attention_free": "False",
                     "sliding_window": "None", "enable_prefix_caching": "False", "cpu_offload_gb": "0",
                     "num_gpu_blocks": str(nblocks), "num_cpu_blocks": str(ncpu)}}
    recs = scrapes(c, steps, reqs, eng, "mp", logpts)
    tb = t_boot
    W = "(VllmWorkerProcess pid=163) "
    L = [(tb, f"INFO {ts(tb)} api_server.py:585] vLLM API server version 0.6.4.post1"),
         (tb + 0.001, f"INFO {ts(tb)} api_server.py:586] args: Namespace(subparser='serve', model_tag='{model}', config='', host='0.0.0.0', port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template='tool_chat_template_llama3.1_json.jinja', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_auto_tool_choice=True, tool_call_parser='llama3_json', tool_parser_plugin='', model='{model}', task='auto', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', chat_template_text_format='string', trust_remote_code=False, allowed_local_media_path=None, download_dir=None, load_format='auto', config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.96, num_gpu_blocks_override=None, max_num_batched_tokens=4096, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, enable_lora=False, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', num_scheduler_steps=1, multi_step_stream_outputs=True, scheduler_delay_factor=0.0, enable_chunked_prefill=True, speculative_model=None, speculative_model_quantization=None, num_speculative_tokens=None, speculative_disable_mqa_scorer=False, speculative_draft_tensor_parallel_size=None, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=None, ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None, disable_logprobs_during_spec_decoding=None, model_loader_extra_config=None, ignore_patterns=[], preemption_mode=None, served_model_name=['{served}'], qlora_adapter_name_or_path=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, scheduling_policy='fcfs', override_neuron_config=None, override_pooler_config=None, compilation_config=None, worker_cls='auto', disable_log_requests=True, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, dispatch_function=<function serve at 0x7f5c4a2b1ea0>)"),
         (tb + 0.2, f"INFO {ts(tb + 0.2)} api_server.py:175] Multiprocessing frontend to use ipc:///tmp/7c0e9a8e-52c3-4f3a-9f4e-1d2b6b4e3c11 for IPC Path."),
         (tb + 0.21, f"INFO {ts(tb + 0.2)} api_server.py:194] Started engine process with PID 98"),
         (tb + 6.3, f"INFO {ts(tb + 6.3)} config.py:350] This model supports multiple tasks: {{'embedding', 'generate'}}. Defaulting to 'generate'."),
         (tb + 6.31, f"INFO {ts(tb + 6.3)} config.py:1020] Defaulting to use mp for distributed inference"),
         (tb + 6.32, f"INFO {ts(tb + 6.3)} config.py:1136] Chunked prefill is enabled with max_num_batched_tokens=4096."),
         (tb + 6.9, f"INFO {ts(tb + 6.9)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={served}, num_scheduler_steps=1, chunked_prefill_enabled=True multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, chat_template_text_format=string, mm_processor_kwargs=None, pooler_config=None)"),
         (tb + 7.0, f"WARNING {ts(tb + 7.0)} multiproc_gpu_executor.py:56] Reducing Torch parallelism from 26 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed."),
         (tb + 9.4, f"{W}INFO {ts(tb + 9.4)} multiproc_worker_utils.py:215] Worker ready; awaiting tasks"),
         (tb + 10.2, f"INFO {ts(tb + 10.2)} pynccl.py:69] vLLM is using nccl==2.21.5"),
         (tb + 10.21, f"{W}INFO {ts(tb + 10.2)} pynccl.py:69] vLLM is using nccl==2.21.5"),
         (tb + 11.0, f"INFO {ts(tb + 11.0)} model_runner.py:1072] Starting to load model {model}..."),
         (tb + 11.01, f"{W}INFO {ts(tb + 11.0)} model_runner.py:1072] Starting to load model {model}..."),
         (tb + 44.8, f"INFO {ts(tb + 44.8)} model_runner.py:1077] Loading model weights took 33.8826 GB"),
         (tb + 45.1, f"{W}INFO {ts(tb + 45.1)} model_runner.py:1077] Loading model weights took 33.8826 GB"),
         (tb + 49.6, f"INFO {ts(tb + 49.6)} worker.py:232] Memory profiling results: total_gpu_memory=79.11GiB initial_memory_usage=34.71GiB peak_torch_memory=38.67GiB memory_usage_post_profile=35.17GiB non_torch_memory=1.29GiB kv_cache_size={kv / GiB:.2f}GiB gpu_memory_utilization=0.96"),
         (tb + 49.61, f"{W}INFO {ts(tb + 49.6)} worker.py:232] Memory profiling results: total_gpu_memory=79.11GiB initial_memory_usage=34.71GiB peak_torch_memory=38.67GiB memory_usage_post_profile=35.17GiB non_torch_memory=1.29GiB kv_cache_size={kv / GiB:.2f}GiB gpu_memory_utilization=0.96"),
         (tb + 49.8, f"INFO {ts(tb + 49.8)} distributed_gpu_executor.py:57] # GPU blocks: {nblocks}, # CPU blocks: {ncpu}"),
         (tb + 49.81, f"INFO {ts(tb + 49.8)} distributed_gpu_executor.py:61] Maximum concurrency for 131072 tokens per request: {nblocks * 16 / 131072:.2f}x"),
         (tb + 52.0, f"INFO {ts(tb + 52.0)} model_runner.py:1400] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
         (tb + 52.01, f"INFO {ts(tb + 52.0)} model_runner.py:1404] If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."),
         (tb + 68.9, f"{W}INFO {ts(tb + 68.9)} model_runner.py:1518] Graph capturing finished in 17 secs, took 0.62 GiB"),
         (tb + 69.0, f"INFO {ts(tb + 69.0)} model_runner.py:1518] Graph capturing finished in 17 secs, took 0.62 GiB"),
         (tb + 70.4, f"INFO {ts(tb + 70.4)} serving_chat.py:70] \"auto\" tool choice has been enabled please note that while the parallel_tool_calls client option is preset for compatibility reasons, it will be ignored."),
         (tb + 70.5, f"INFO {ts(tb + 70.5)} launcher.py:19] Available routes are:"),
         (tb + 70.6, "INFO:     Started server process [1]"),
         (tb + 70.61, "INFO:     Waiting for application startup."),
         (tb + 70.62, "INFO:     Application startup complete."),
         (tb + 70.63, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    L += v0_stats_lines(logpts, "449", nblocks)
    L += access(reqs, t_bench - 1, c["t0"] + c["n"] * c["iv"], "/v1/chat/completions", ip="10.42.3.17")
    t_end_log = c["t0"] + (c["n"] - 1) * c["iv"] + 5
    L = [x for x in L if x[0] <= t_end_log]
    used = int(total * 0.96) + 610 * MiB

    def devs(t):
        return [{"index": k, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": used,
                 "processes": [{"pid": 98 if k == 0 else 163, "name": "python3", "used_memory": used - 610 * MiB}]} for k in (0, 1)]
    cfg = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
           "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
           "intermediate_size": 28672, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
           "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1,
           "quantization_config": {"config_groups": {"group_0": {"input_activations": {"actorder": None, "block_structure": None, "dynamic": True, "group_size": None, "num_bits": 8, "observer": None, "observer_kwargs": {}, "strategy": "token", "symmetric": True, "type": "float"}, "output_activations": None, "targets": ["Linear"], "weights": {"actorder": None, "block_structure": None, "dynamic": False, "group_size": None, "num_bits": 8, "observer": "minmax", "observer_kwargs": {}, "strategy": "channel", "symmetric": True, "type": "float"}}},
                                   "format": "float-quantized", "global_compression_ratio": 1.463, "ignore": ["lm_head"], "kv_cache_scheme": None,
                                   "quant_method": "compressed-tensors", "quantization_status": "compressed"},
           "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
           "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.46.1",
           "use_cache": True, "vocab_size": 128256}
    argv = ["vllm", "serve", model, "--served-model-name", served, "--host", "0.0.0.0", "--disable-log-requests",
            "--gpu-memory-utilization=0.96", "--tensor-parallel-size=2", "--enable-chunked-prefill", "--max-num-batched-tokens=4096",
            "--enable-auto-tool-choice", "--tool-call-parser=llama3_json", "--chat-template=tool_chat_template_llama3.1_json.jinja"]
    args = {"argv": argv, "args": {"gpu-memory-utilization": 0.96, "tensor-parallel-size": 2, "enable-chunked-prefill": True,
                                   "max-num-batched-tokens": 4096, "enable-auto-tool-choice": True, "tool-call-parser": "llama3_json",
                                   "chat-template": "tool_chat_template_llama3.1_json.jinja"}}
    server = {"version": {"version": "0.6.4.post1"}, "models": gen.models_json(served, model, 131072, int(c["t0"])), "health": 200}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest=manifest(c, "Replica 0 of 2 (TP=2, two H100) serving Llama-3.1-70B-Instruct FP8-dynamic on vLLM 0.6.4.post1 during benchmark_serving at QPS 0.2 over both replicas, ~8K-token report-summarisation prompts; mean TPOT 25.7 ms on this release against 15.7 ms before."),
                     records=recs, server=server, engine_args=args, model_config=cfg, gpu=gpu_recs(c, devs), logs=L)
    summarize(cid, steps, reqs, c)



# ======================================================================================= case D
def case_d() -> None:
    cid = "zo-r1-v1-070-rate4-ttft-100s"
    rnd = random.Random(12568)
    model = "deepseek-ai/DeepSeek-R1"
    # 0.7.0 has no MLA path for DeepSeek: Attention(16 heads per GPU at TP=8, head size 192, num_kv_heads = num_heads)
    page = 16 * 2 * 16 * 192 * 2  # bytes per block per layer per GPU
    per_block = page * 61
    total = int(139.81 * GiB)
    weights = int(83.88 * GiB)
    kv = int(total * 0.9) - weights - int(4.53 * GiB)
    nblocks = kv // per_block
    t_boot = 1738573200.0  # 2025-02-03 09:00:00 UTC
    t_bench = t_boot + 600.0
    reqs, t = [], t_bench
    for i in range(1000):
        if rnd.random() < 0.85:
            o = 128
        else:
            o = rnd.randint(20, 127)
        reqs.append(Req(i, t, 1024, o, 128))
        t += rnd.expovariate(4.0)

    def step_time(pt, nd, ctx, r):
        return 0.098 + 0.00090 * nd + pt * 9.0e-5 + r.uniform(0, 0.006)

    eng = Engine(mode="v1", max_num_seqs=1024, budget=8192, num_blocks=nblocks, step_time=step_time, seed=5)
    steps = eng.run(reqs)
    c = {"cid": cid, "served": model, "t0": t_bench - 15.0, "iv": 10.0, "n": 50, "endpoint": "http://0.0.0.0:8000"}
    api_pid = 1
    recs = []
    for k in range(c["n"]):
        tt = c["t0"] + k * c["iv"]
        done = sum(1 for r in reqs if r.t_end is not None and r.t_end <= tt)
        text = gen.process_block(tt, t_boot - 0.6, rss=int(5.02 * GiB + done * 0.45 * MiB), vms=int(58.4 * GiB),
                                 cpu=311.8 + max(0.0, tt - t_bench) * 0.97, fds=88 + (k % 7),
                                 gc=(2113402 + done * 941, 611203 + done * 77, 31021))
        recs.append({"t": round(tt, 3), "status": 200, "text": text})
    # V1 LoggingStatLogger: every 5 s of engine steps, "Running: N reqs, Waiting: M reqs "
    L = []
    last = None
    for st in steps:
        if last is None or st.t1 - last >= 5.0:
            L.append((st.t1, f"INFO {ts(st.t1)} loggers.py:34] Running: {st.running} reqs, Waiting: {st.waiting} reqs "))
            last = st.t1
    for r in reqs:
        L.append((r.t_arr + 0.004, f"INFO {ts(r.t_arr)} async_llm.py:157] Added request cmpl-{'%032x' % rnd.getrandbits(128)}-0."))
        L.append((r.t_arr + 0.002, f'INFO:     127.0.0.1:{45000 + r.rid % 15000} - "POST /v1/completions HTTP/1.1" 200 OK'))
    tb = t_boot
    E = "(VllmWorker rank={} pid={}) "
    pids = [412 + k for k in range(8)]
    head = [(tb, f"INFO {ts(tb)} api_server.py:835] vLLM API server version 0.7.0"),
            (tb + 0.001, f"INFO {ts(tb)} api_server.py:836] args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, enable_reasoning=False, reasoning_parser=None, tool_call_parser=None, tool_parser_plugin='', model='{model}', task='auto', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=True, allowed_local_media_path=None, download_dir=None, load_format='auto', config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', kv_cache_dtype='auto', max_model_len=32768, guided_decoding_backend='xgrammar', logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=8, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=None, enable_prefix_caching=None, disable_sliding_window=False, use_v2_block_manager=True, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=False, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', num_scheduler_steps=1, multi_step_stream_outputs=True, scheduler_delay_factor=0.0, enable_chunked_prefill=None, speculative_model=None, speculative_model_quantization=None, num_speculative_tokens=None, speculative_disable_mqa_scorer=False, speculative_draft_tensor_parallel_size=None, speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=None, ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None, disable_logprobs_during_spec_decoding=None, model_loader_extra_config=None, ignore_patterns=[], preemption_mode=None, served_model_name=None, qlora_adapter_name_or_path=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, scheduling_policy='fcfs', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', generation_config=None, override_generation_config=None, enable_sleep_mode=False, calculate_kv_scales=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, dispatch_function=<function serve at 0x7f0e3c2d5d80>)"),
            (tb + 2.4, f"INFO {ts(tb + 2.4)} config.py:520] This model supports multiple tasks: {{'embed', 'generate', 'score', 'classify', 'reward'}}. Defaulting to 'generate'."),
            (tb + 2.5, f"INFO {ts(tb + 2.5)} config.py:1328] Defaulting to use mp for distributed inference"),
            (tb + 2.6, f"WARNING {ts(tb + 2.6)} arg_utils.py:1298] Setting max_num_batched_tokens to 8192 for OPENAI_API_SERVER usage context."),
            (tb + 9.8, f"INFO {ts(tb + 9.8)} core.py:45] Initializing an LLM engine (v0.7.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")]
    for k, pid in enumerate(pids):
        head.append((tb + 14.0 + k * 0.01, f"{E.format(k, pid)}INFO {ts(tb + 14.0)} gpu_model_runner.py:843] Starting to load model {model}..."))
    for k, pid in enumerate(pids):
        head.append((tb + 301.0 + k * 0.4, f"{E.format(k, pid)}INFO {ts(tb + 301.0 + k * 0.4)} gpu_model_runner.py:848] Loading model weights took 83.8835 GB"))
    head += [(tb + 342.5, f"INFO {ts(tb + 342.5)} kv_cache_utils.py:395] # GPU blocks: {nblocks}")]
    for k, pid in enumerate(pids):
        head.append((tb + 401.0 + k * 0.3, f"{E.format(k, pid)}INFO {ts(tb + 401.0 + k * 0.3)} gpu_model_runner.py:1019] Graph capturing finished in 57 secs, took 2.61 GiB"))
    head += [(tb + 404.2, f"INFO {ts(tb + 404.2)} core.py:89] init engine (profile, create kv cache, warmup model) took 103.57 seconds"),
             (tb + 405.9, f"INFO {ts(tb + 405.9)} launcher.py:19] Available routes are:"),
             (tb + 406.0, "INFO:     Started server process [1]"),
             (tb + 406.01, "INFO:     Waiting for application startup."),
             (tb + 406.02, "INFO:     Application startup complete."),
             (tb + 406.03, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    L += head
    t_end_log = c["t0"] + (c["n"] - 1) * c["iv"] + 5
    L = [x for x in L if x[0] <= t_end_log]
    used = int(total * 0.9) + 562 * MiB

    def devs(t):
        return [{"index": k, "name": "NVIDIA H200", "memory_total": 150754820096, "memory_used": used,
                 "processes": [{"pid": pids[k], "name": "python3", "used_memory": used - 562 * MiB}]} for k in range(8)]
    cfg = {"architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
           "auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV3Config", "AutoModel": "modeling_deepseek.DeepseekV3Model",
                        "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM"},
           "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
           "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432,
           "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v3", "moe_intermediate_size": 2048,
           "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True,
           "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
           "num_nextn_predict_layers": 1, "pretraining_tp": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
           "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
           "rms_norm_eps": 1e-06, "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                                                    "original_max_position_embeddings": 4096, "type": "yarn"},
           "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": True, "tie_word_embeddings": False,
           "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16", "transformers_version": "4.46.3", "use_cache": True,
           "v_head_dim": 128, "vocab_size": 129280}
    argv = ["vllm", "serve", model, "--tensor-parallel-size", "8", "--trust-remote-code", "--max-model-len", "32768"]
    args = {"argv": argv, "args": {"tensor-parallel-size": 8, "trust-remote-code": True, "max-model-len": 32768}}
    server = {"version": {"version": "0.7.0"}, "models": gen.models_json(model, model, 32768, int(c["t0"])), "health": 200}
    man = manifest(c, "DeepSeek-R1 on 8xH200, vLLM 0.7.0 with VLLM_USE_V1=1, during benchmark_serving --dataset-name=random --request-rate 4 (1000 requests of 1024 input tokens). 0.7.0's V1 engine exports no vllm:* metrics; its state is in the log.")
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest=man, records=recs, server=server, engine_args=args,
                     model_config=cfg, gpu=gpu_recs(c, devs), logs=L)
    summarize(cid, steps, reqs, c)
    fin = [r for r in reqs if r.t_end is not None]
    dur = max(r.t_end for r in fin) - t_bench
    tt = [r.t_first - r.t_arr for r in fin]
    tp = [(r.t_end - r.t_first) / (r.gen - 1) for r in fin if r.gen > 1]
    print(f"  bench: duration {dur:.1f}s, {len(fin) / dur:.2f} req/s, out tok/s {sum(r.gen for r in fin) / dur:.1f}, "
          f"TTFT mean {sum(tt) / len(tt):.1f}s median {sorted(tt)[len(tt) // 2]:.1f}s p99 {sorted(tt)[int(.99 * len(tt))]:.1f}s, "
          f"TPOT mean {1000 * sum(tp) / len(tp):.1f}ms, blocks {nblocks}, preempted {sum(r.preempted for r in reqs)}")



def summarize(cid, steps, reqs, c):
    lo, hi = c["t0"], c["t0"] + (c["n"] - 1) * c["iv"]
    fin = [r for r in reqs if r.t_end is not None and lo <= r.t_end <= hi]
    tp = [lat for r in reqs for (t, lat) in r.tpot if lo <= t <= hi]
    ttft = sorted(r.t_first - r.t_arr for r in fin)
    tpot_req = [(r.t_end - r.t_first) / (r.gen - 1) for r in fin if r.gen > 1]
    runs = [s.running for s in steps if lo <= s.t1 <= hi]
    waits = [s.waiting for s in steps if lo <= s.t1 <= hi]
    pct = lambda a, q: sorted(a)[int(q * (len(a) - 1))] if a else float("nan")
    print(f"{cid}: finished {len(fin)}  ttft p50 {pct(ttft, .5):.3f} p95 {pct(ttft, .95):.3f} mean {sum(ttft) / max(1, len(ttft)):.3f}  "
          f"itl-obs p50 {pct(tp, .5) * 1000:.1f}ms mean {sum(tp) / max(1, len(tp)) * 1000:.1f}ms  tpot/req mean {sum(tpot_req) / max(1, len(tpot_req)) * 1000:.1f}ms  "
          f"running mean {sum(runs) / max(1, len(runs)):.1f} max {max(runs, default=0)}  waiting max {max(waits, default=0)}  "
          f"preempt {sum(s.preempted for s in steps)}")


CASES = {"zo-ngram-k8-qwen15-1p8b-a100": case_a, "zo-v070-ttft-3x-4k-chunk2048": case_b, "zo-v064-70b-fp8-8k-tpot-regress": case_c, "zo-r1-v1-070-rate4-ttft-100s": case_d}

if __name__ == "__main__":
    for name in (sys.argv[1:] or list(CASES)):
        CASES[name]()
