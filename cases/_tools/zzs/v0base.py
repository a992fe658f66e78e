"""Writer zzn's cases (round 15): builds cases/zzn-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzn/cases.py
gen.py is zzl's (zzg's) builder copied unchanged; here the V0 0.7.3 template is trimmed to the families
of the 0.5.x/0.6.x series and the V0 spec-decode metrics (vllm/engine/metrics.py, 0.5-0.6) are added.
Seeded, no wall clock. Numbers not quoted are under `assumed:` in each case.yaml.
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

MiB, GiB = 1024 ** 2, 1024 ** 3
ts = gen.ts
V0T = "c-v0-recompute-warnings-limo32b"
DROP = {"vllm:request_queue_time_seconds", "vllm:time_in_queue_requests", "vllm:request_inference_time_seconds",
        "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:request_max_num_generation_tokens",
        "vllm:request_params_max_tokens", "vllm:tokens", "vllm:gpu_prefix_cache_hit_rate", "vllm:cpu_prefix_cache_hit_rate"}
_orig = gen._template
gen._template = lambda case: [f for f in _orig(case) if f["name"] not in DROP]


def utc(*a):
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv):
    a, i = {}, 0
    while i < len(argv):
        if not argv[i].startswith("--"):
            i += 1; continue
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for cast in (int, float):
                try:
                    v = cast(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


def v0_stats(reqs, t_from, t_to, pool, step=5.0, ref="metrics.py:295", spec_k=0, ref2="metrics.py:316"):
    L, tt = [], t_from
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    while tt + step <= t_to:
        a, b = tt, tt + step
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        if run or pend or pt or gt:
            L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / step:.1f} tokens/s, Avg generation throughput: {gt / step:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blocks * 16 / pool:.1f}%, CPU KV cache usage: 0.0%."))
            if spec_k:
                steps = sum(r.steps_by(b) for r in reqs)
                L.append((b + .001, f"INFO {ts(b)} {ref2}] Speculative metrics: Draft acceptance rate: 0.000, System efficiency: {1 / (spec_k + 1):.3f}, "
                                    f"Number of speculative tokens: {spec_k}, Number of accepted tokens: 0, Number of draft tokens: {steps * spec_k}, Number of emitted tokens: {steps}."))
        tt = b
    return L


def add_spec_v0(c, k):
    """Append the V0 spec-decode families (0 accepted) to every scrape."""
    p = ROOT / "cases" / c.cid / "bundle" / "metrics.jsonl"
    out = []
    base = f'model_name="{c.model_name}"'
    for ln in p.read_text().splitlines():
        d = json.loads(ln)
        steps = sum(r.steps_by(d["t"]) for r in c.reqs)
        extra = [
            "# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.",
            "# TYPE vllm:spec_decode_draft_acceptance_rate gauge", f"vllm:spec_decode_draft_acceptance_rate{{{base}}} 0.0",
            "# HELP vllm:spec_decode_efficiency Speculative decoding system efficiency.",
            "# TYPE vllm:spec_decode_efficiency gauge", f"vllm:spec_decode_efficiency{{{base}}} {1 / (k + 1) if steps else 0.0!r}",
            "# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.",
            "# TYPE vllm:spec_decode_num_accepted_tokens_total counter", f"vllm:spec_decode_num_accepted_tokens_total{{{base}}} 0.0",
            "# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.",
            "# TYPE vllm:spec_decode_num_draft_tokens_total counter", f"vllm:spec_decode_num_draft_tokens_total{{{base}}} {float(steps * k)!r}",
            "# HELP vllm:spec_decode_num_emitted_tokens_total Number of emitted tokens.",
            "# TYPE vllm:spec_decode_num_emitted_tokens_total counter", f"vllm:spec_decode_num_emitted_tokens_total{{{base}}} {float(steps)!r}",
        ]
        d["text"] = d["text"] + "\n".join(extra) + "\n"
        out.append(json.dumps(d))
    p.write_text("\n".join(out) + "\n")


def llama(layers, hidden, heads, kv, inter, vocab=128256, mpe=8192, extra=None):
    d = {"architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": hidden, "intermediate_size": inter,
         "max_position_embeddings": mpe, "model_type": "llama", "num_attention_heads": heads, "num_hidden_layers": layers,
         "num_key_value_heads": kv, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False,
         "torch_dtype": "bfloat16", "vocab_size": vocab}
    d.update(extra or {})
    return d


def serial_reqs(rnd, t0, t_end, nusers, p_rng, g_rng, think=(3, 12)):
    """Each user sends the next request a little after the previous one ends (arrival times fixed up front)."""
    return [(u, p_rng, g_rng, think) for u in range(nusers)]


def run_closed_loop(c, rnd, t_start, t_stop, nusers, p_rng, g_rng, step_s, prefill_s, think=(3, 12), maxtok=1024):
    reqs, rid = [], 0
    for u in range(nusers):
        t = t_start + rnd.uniform(0, 8)
        while t < t_stop:
            p, g = rnd.randint(*p_rng), rnd.randint(*g_rng)
            r = Req(rid, t, p, 0, g, maxtok, "stop"); rid += 1
            r.t_sched = t; r.step_s = step_s; r.t_first = t + prefill_s(p); r.t_end = r.t_first + r.steps() * step_s
            reqs.append(r)
            t = r.t_end + rnd.uniform(*think)
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i
    c.reqs = reqs
    return reqs


def startup_v0(s, version, root, extra_ns, cfg, blocks, mml, weights_gb, kv_gib, tot_gib, util, act=1.2, ntm=0.4, spec=None, ref_api=("api_server.py:206", "api_server.py:207")):
    L = [(s, f"INFO {ts(s)} {ref_api[0]}] vLLM API server version {version}"),
         (s + .1, f"INFO {ts(s)} {ref_api[1]}] args: Namespace(host=None, port=8000, model='{root}', {extra_ns})"),
         (s + 5, f"INFO {ts(s + 5)} llm_engine.py:174] Initializing an LLM engine (v{version}) with config: model='{root}', speculative_config={spec}, tokenizer='{root}', {cfg}")]
    L += [(s + 60, f"INFO {ts(s + 60)} model_runner.py:255] Loading model weights took {weights_gb:.4f} GB"),
          (s + 66, f"INFO {ts(s + 66)} gpu_executor.py:84] # GPU blocks: {blocks}, # CPU blocks: 2048"),
          (s + 70, f"INFO {ts(s + 70)} model_runner.py:958] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
          (s + 88, f"INFO {ts(s + 88)} model_runner.py:1033] Graph capturing finished in 18 secs."),
          (s + 90, f"INFO:     Started server process [1]"),
          (s + 90.1, f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    return L


# ---------------------------------------------------------------- 1 PR #6317 GH200 offload (dev-15)
def gh200():
    cid = "zzn-gh200-offload-llama70b"
    rnd = random.Random(6317)
    t0 = utc(2024, 7, 16, 0, 10, 0)
    interval, n = 10.0, 61
    blocks, pool = 1380, 1380 * 16
    root = "/models/Meta-Llama-3-70B-Instruct"
    cc = gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="819", gpu_memory_utilization="0.9", enable_prefix_caching="False", cache_dtype="auto", block_size="16", swap_space="4")
    cc.pop("cpu_offload_gb", None)
    c = Case(cid=cid, version="0.5.1", v0=True, model_name=root, model_root=root, max_model_len=8192, start=t0, n_scrapes=n, interval=interval,
             labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    run_closed_loop(c, rnd, t0 - 120, t0 + 600, 1, (250, 400), (300, 500), 0.2174, lambda p: 0.9 + p * 0.0016, think=(4, 15))
    s = t0 - 900
    ns = ("uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, "
          "prompt_adapters=None, chat_template=None, response_role='assistant', tokenizer=None, dtype='auto', kv_cache_dtype='auto', max_model_len=None, "
          "gpu_memory_utilization=0.9, enforce_eager=False, tensor_parallel_size=1, cpu_offload_trigger_percent=0.8, block_size=16, swap_space=4, enable_prefix_caching=False, enable_chunked_prefill=None")
    cfg = ("skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
           "dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
           "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, "
           f"served_model_name={root}, use_v2_block_manager=False, enable_prefix_caching=False)")
    logs = startup_v0(s, "0.5.1", root, ns, cfg, blocks, 8192, 82.10, 6.74, 95.58, 0.9)
    logs.insert(4, (s + 58, f"INFO {ts(s + 58)} cpu_offload.py:88] GPU memory trigger reached (80% of 95.58 GiB): offloading remaining weights to CPU, 54.97 GiB of parameters kept in pinned CPU memory"))
    logs += v0_stats(c.reqs, t0 - 60, t0 + 600, pool)
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     10.0.0.12:{50000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 86224 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA GH200 480GB", "memory_total": 97871 * MiB, "memory_used": used,
                               "processes": [{"pid": 2741, "name": "python", "used_memory": used - 512 * MiB}]}])
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--cpu_offload_trigger_percent", "0.80"]
    mc = llama(80, 8192, 64, 8, 28672)
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.5.1", root, root, 8192, int(s + 90)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Single GH200 (96 GB HBM) serving Llama-3-70B-Instruct bf16 with conditional CPU weight offload at 80 %; one user chatting; reporter sees ~4.6 tokens/s.",
              endpoint="http://gh200-01:8000")


# ---------------------------------------------------------------- 2 #6768 Medusa k=16 (holdout-15)
def medusa16():
    cid = "zzn-medusa16-zero-accept"
    rnd = random.Random(6768)
    t0 = utc(2024, 7, 24, 3, 55, 0)
    interval, n = 10.0, 61
    blocks, pool = 8900, 8900 * 16
    root = "lmsys/vicuna-7b-v1.3"
    c = Case(cid=cid, version="0.5.3", v0=True, model_name=root, model_root=root, max_model_len=2048, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="512", gpu_memory_utilization="0.9", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    run_closed_loop(c, rnd, t0 - 60, t0 + 600, 2, (250, 600), (200, 400), 0.0157, lambda p: 0.04 + p * 0.00012, think=(0.2, 1.5), maxtok=512)
    s = t0 - 600
    spec = "SpeculativeConfig(draft_model='/models/medusa-vicuna-7b-v1.3', num_spec_tokens=16)"
    ns = ("speculative_model='/models/medusa-vicuna-7b-v1.3', num_speculative_tokens=16, use_v2_block_manager=True, max_model_len=2048, gpu_memory_utilization=0.9, "
          "tensor_parallel_size=1, dtype='auto', kv_cache_dtype='auto', enforce_eager=False, block_size=16, swap_space=4")
    cfg = ("skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
           "dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
           "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
           f"decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={root}, use_v2_block_manager=True, enable_prefix_caching=False)")
    logs = startup_v0(s, "0.5.3", root, ns, cfg, blocks, 2048, 12.58, 0, 0, 0.9, spec=spec)
    logs.insert(3, (s + 4, f"INFO {ts(s + 4)} spec_decode_worker.py:157] Configuring SpecDecodeWorker with proposer=<class 'vllm.spec_decode.medusa_worker.MedusaWorker'>"))
    logs.insert(4, (s + 4.1, f"INFO {ts(s + 4)} spec_decode_worker.py:169] Configuring SpecDecodeWorker with sampler=<class 'vllm.model_executor.layers.rejection_sampler.RejectionSampler'>"))
    logs += v0_stats(c.reqs, t0 - 60, t0 + 600, pool, spec_k=16)
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     ::1:{50300 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    used = 73_410 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB, "memory_used": used,
                               "processes": [{"pid": 3307, "name": "python", "used_memory": used - 420 * MiB}]}])
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--speculative-model", "/models/medusa-vicuna-7b-v1.3",
            "--num-speculative-tokens", "16", "--use-v2-block-manager", "--max-model-len", "2048"]
    mc = llama(32, 4096, 32, 32, 11008, vocab=32000, mpe=2048, extra={"rope_theta": 10000.0, "torch_dtype": "float16", "rms_norm_eps": 1e-06})
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.5.3", root, root, 2048, int(s + 90)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Trying Medusa speculative decoding on one A100; two clients in a loop; no visible speed-up.", endpoint="http://localhost:8000")
    add_spec_v0(c, 16)


# ---------------------------------------------------------------- 3 #8620 Medusa k=3 typical (holdout-15)
def medusa3():
    cid = "zzn-medusa3-typical-qwen14b"
    rnd = random.Random(8620)
    t0 = utc(2024, 9, 19, 6, 20, 0)
    interval, n = 10.0, 61
    blocks, pool = 3650, 3650 * 16
    root = "/mnt/user/deploy/qwen15_14b_finetuning_chatbot_v1_0914_deploy"
    c = Case(cid=cid, version="0.6.1", v0=True, model_name="qwen2-7b", model_root=root, max_model_len=2048, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="327", gpu_memory_utilization="0.9", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=1, tmpl=V0T)
    run_closed_loop(c, rnd, t0 - 40, t0 + 600, 1, (150, 500), (100, 300), 0.0301, lambda p: 0.05 + p * 0.00025, think=(6, 25), maxtok=1024)
    s = t0 - 700
    spec = "SpeculativeConfig(draft_model='/mnt/user/deploy/qwen15_14b_finetuning_chatbot_v1_0914_deploy/medusa', num_spec_tokens=3)"
    ns = ("served_model_name=['qwen2-7b'], dtype='auto', tensor_parallel_size=1, max_model_len=2048, gpu_memory_utilization=0.9, max_num_seqs=1, "
          f"speculative_model='{root}/medusa', speculative_draft_tensor_parallel_size=1, num_speculative_tokens=3, use_v2_block_manager=True, "
          "spec_decoding_acceptance_method='typical_acceptance_sampler', typical_acceptance_sampler_posterior_threshold=None, typical_acceptance_sampler_posterior_alpha=None")
    cfg = ("skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
           "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
           "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quant_param_path=None, device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name=qwen2-7b, use_v2_block_manager=True, num_scheduler_steps=1, "
           "enable_prefix_caching=False, use_async_output_proc=False)")
    logs = startup_v0(s, "0.6.1", root, ns, cfg, blocks, 2048, 26.73, 0, 0, 0.9, spec=spec, ref_api=("api_server.py:495", "api_server.py:496"))
    logs = [(t, l.replace("llm_engine.py:174] Initializing an LLM engine", "llm_engine.py:223] Initializing an LLM engine")) for t, l in logs]
    logs.insert(3, (s + 4, f"INFO {ts(s + 4)} spec_decode_worker.py:183] Configuring SpecDecodeWorker with proposer=<class 'vllm.spec_decode.medusa_worker.MedusaWorker'>"))
    logs.insert(4, (s + 4.1, f"INFO {ts(s + 4)} spec_decode_worker.py:197] [Speculative Decoding] Use batch expansion for scoring proposals."))
    logs.insert(5, (s + 4.2, f"INFO {ts(s + 4)} spec_decode_worker.py:176] Configuring SpecDecodeWorker with sampler=<class 'vllm.model_executor.layers.typical_acceptance_sampler.TypicalAcceptanceSampler'>"))
    logs += v0_stats(c.reqs, t0 - 60, t0 + 600, pool, ref="metrics.py:351", spec_k=3, ref2="metrics.py:367")
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     172.17.0.1:{41000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 74_020 * MiB
    gpu = gen.gpu_samples(c, [{"index": 2, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB, "memory_used": used,
                               "processes": [{"pid": 51822, "name": "python3", "used_memory": used - 420 * MiB}]}])
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8010", "--served-model-name", "qwen2-7b", "--model", root, "--dtype", "auto",
            "-tp", "1", "--max-model-len", "2048", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "1", "--speculative-model", f"{root}/medusa",
            "--speculative-draft-tensor-parallel-size", "1", "--num-speculative-tokens", "3", "--use-v2-block-manager",
            "--spec-decoding-acceptance-method", "typical_acceptance_sampler"]
    mc = {"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 5120, "intermediate_size": 13696, "max_position_embeddings": 32768,
          "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 40, "rms_norm_eps": 1e-06,
          "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 152064}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.6.1", "qwen2-7b", root, 2048, int(s + 90)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Qwen1.5-14B chatbot fine-tune with self-trained Medusa heads (3), one request at a time; no acceleration seen.", endpoint="http://10.8.0.21:8010")
    add_spec_v0(c, 3)


# ---------------------------------------------------------------- 4 #6135 Phi-3 longrope + fp8 KV (holdout-15)
def phi3():
    cid = "zzn-phi3-longrope-fp8-gibberish"
    rnd = random.Random(6135)
    t0 = utc(2024, 7, 3, 14, 0, 0)
    interval, n = 10.0, 61
    # Phi-3-mini: 32 layers x 32 KV heads x 96 x 2 x 1 byte (fp8) = 196,608 B/token; ~64.9 GiB pool
    blocks, pool = 22150, 22150 * 16
    root = "microsoft/Phi-3-mini-128k-instruct"
    c = Case(cid=cid, version="0.5.1", v0=True, model_name=root, model_root=root, max_model_len=32768, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="13653", gpu_memory_utilization="0.9", enable_prefix_caching="False", cache_dtype="fp8", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    run_closed_loop(c, rnd, t0 - 60, t0 + 600, 4, (1500, 12000), (120, 400), 0.0105, lambda p: 0.03 + p * 0.000065, think=(2, 10), maxtok=1024)
    s = t0 - 600
    ns = ("trust_remote_code=True, dtype='auto', kv_cache_dtype='fp8', quantization_param_path=None, max_model_len=32768, gpu_memory_utilization=0.9, "
          "tensor_parallel_size=1, enforce_eager=False, block_size=16, swap_space=4, enable_prefix_caching=False")
    cfg = ("skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, "
           "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
           "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=fp8, quantization_param_path=None, device_config=cuda, "
           f"decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={root}, use_v2_block_manager=False, enable_prefix_caching=False)")
    logs = startup_v0(s, "0.5.1", root, ns, cfg, blocks, 32768, 7.1183, 0, 0, 0.9)
    logs.insert(3, (s + 6, f"WARNING {ts(s + 6)} utils.py:540] Using 'pin_memory=False' as WSL is detected. This may slow down the performance." if False else
                    f"INFO {ts(s + 6)} selector.py:150] Using XFormers backend."))
    logs.insert(4, (s + 6.1, f"WARNING {ts(s + 6)} cache_engine.py:? ] " if False else
                    f"INFO {ts(s + 6)} config.py:474] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor"))
    logs += v0_stats(c.reqs, t0 - 60, t0 + 600, pool)
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     10.1.4.7:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 74_880 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB, "memory_used": used,
                               "processes": [{"pid": 1877, "name": "python3", "used_memory": used - 420 * MiB}]}])
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--trust-remote-code", "--kv-cache-dtype", "fp8", "--max-model-len", "32768"]
    mc = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_act": "silu", "hidden_size": 3072, "intermediate_size": 8192,
          "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 32, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
          "rope_scaling": {"type": "longrope", "long_factor": [1.0800000429153442] * 48, "short_factor": [1.0] * 48},
          "sliding_window": 262144, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 32064}
    out = ROOT / "cases" / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.5.1", root, root, 32768, int(s + 90)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Document Q&A on Phi-3-mini-128k with fp8 KV cache; users report gibberish answers on long documents. Latency looks normal.",
              endpoint="http://phi3-qa:8000")
    man = json.loads((out / "manifest.json").read_text()); man["complaint"] = "quant-quality"
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


if False:
    gh200(); medusa16(); medusa3(); phi3()
    print("ok")
