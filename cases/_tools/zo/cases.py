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


CASES = {"zo-ngram-k8-qwen15-1p8b-a100": case_a}

if __name__ == "__main__":
    for name in (sys.argv[1:] or list(CASES)):
        CASES[name]()
