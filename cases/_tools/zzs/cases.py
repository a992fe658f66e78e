"""Writer zzs's cases (round 16): builds cases/zzs-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzs/cases.py
gen.py is zzn's builder copied unchanged; v0base.py is zzn's cases.py (V0 0.5/0.6 family trim, V0 stats
line, V0 start-up lines) used as a library. Seeded, no wall clock. Unquoted numbers are under `assumed:`.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
import v0base as vb  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

MiB, GiB = 1024 ** 2, 1024 ** 3
ts = gen.ts
V0T = vb.V0T


def loop(c, rnd, t_start, t_stop, nusers, p_rng, g_rng, step_s, prefill_s, think, maxtok, tps=1.0):
    reqs, rid = [], 0
    for u in range(nusers):
        t = t_start + rnd.uniform(0, 8)
        while t < t_stop:
            p, g = rnd.randint(*p_rng), rnd.randint(*g_rng)
            r = Req(rid, t, p, 0, g, maxtok, "stop"); rid += 1
            r.tps = tps; r.t_sched = t; r.step_s = step_s; r.t_first = t + prefill_s(p); r.t_end = r.t_first + r.steps() * step_s
            reqs.append(r)
            t = r.t_end + rnd.uniform(*think)
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i
    c.reqs = reqs
    return reqs


def add_spec(c, k, acc, eff):
    """V0 spec-decode families (vllm/engine/metrics.py 0.6): gauges + counters from the simulated steps."""
    p = ROOT / "cases" / c.cid / "bundle" / "metrics.jsonl"
    out, base = [], f'model_name="{c.model_name}"'
    for ln in p.read_text().splitlines():
        d = json.loads(ln)
        steps = sum(r.steps_by(d["t"]) for r in c.reqs)
        emitted = sum(max(0, r.gen_by(d["t"]) - 1) for r in c.reqs)
        extra = [
            "# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.",
            "# TYPE vllm:spec_decode_draft_acceptance_rate gauge", f"vllm:spec_decode_draft_acceptance_rate{{{base}}} {acc if steps else 0.0!r}",
            "# HELP vllm:spec_decode_efficiency Speculative decoding system efficiency.",
            "# TYPE vllm:spec_decode_efficiency gauge", f"vllm:spec_decode_efficiency{{{base}}} {eff if steps else 0.0!r}",
            "# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.",
            "# TYPE vllm:spec_decode_num_accepted_tokens_total counter", f"vllm:spec_decode_num_accepted_tokens_total{{{base}}} {float(round(steps * k * acc))!r}",
            "# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.",
            "# TYPE vllm:spec_decode_num_draft_tokens_total counter", f"vllm:spec_decode_num_draft_tokens_total{{{base}}} {float(steps * k)!r}",
            "# HELP vllm:spec_decode_num_emitted_tokens_total Number of emitted tokens.",
            "# TYPE vllm:spec_decode_num_emitted_tokens_total counter", f"vllm:spec_decode_num_emitted_tokens_total{{{base}}} {float(emitted)!r}",
        ]
        d["text"] = d["text"] + "\n".join(extra) + "\n"
        out.append(json.dumps(d))
    p.write_text("\n".join(out) + "\n")


def cfg_line(root, dtype, mml, tp, eager, extra=""):
    return ("skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
            f"dtype={dtype}, max_seq_len={mml}, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size={tp}, pipeline_parallel_size=1, "
            f"disable_custom_all_reduce=False, quantization=None, enforce_eager={eager}, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
            f"decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={root}{extra})")


def h100s(c, n, used_mib, name="NVIDIA H100 80GB HBM3", total=81559):
    return gen.gpu_samples(c, [{"index": i, "name": name, "memory_total": total * MiB, "memory_used": used_mib * MiB,
                                "processes": [{"pid": 4100 + i, "name": "python3", "used_memory": (used_mib - 520) * MiB}]} for i in range(n)])


# ------------------------------------------------------------ 1 #9565 EAGLE 70B TP4 (dev-16)
def eagle():
    cid = "zzs-eagle70b-tp4-sharegpt-no-speedup"
    rnd = random.Random(9565)
    t0 = vb.utc(2024, 10, 21, 21, 0, 0)
    interval, n = 10.0, 61
    # 70B bf16 / TP4: 32.9 GiB weights per GPU; 72 GiB usable - weights - EAGLE head + activations ~6 GiB -> ~33 GiB KV;
    # Llama-3 70B 327,680 B/token / 4 ranks = 81,920 B/token/GPU -> ~432k tokens -> 27,000 blocks
    blocks = 27000; pool = blocks * 16
    root = "meta-llama/Meta-Llama-3.1-70B-Instruct"
    k, acc, eff = 4, 0.4, 0.3
    tps = eff * (k + 1)  # 1.5 tokens emitted per step
    c = Case(cid=cid, version="0.6.1.post2", v0=True, model_name=root, model_root=root, max_model_len=8192, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="3276", gpu_memory_utilization="0.9", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    loop(c, rnd, t0 - 60, t0 + 600, 4, (120, 900), (150, 500), 0.0375, lambda p: 0.06 + p * 0.00009, think=(2, 9), maxtok=1024, tps=tps)
    s = t0 - 900
    spec = "SpeculativeConfig(draft_model='yuhuili/EAGLE-LLaMA3-Instruct-70B', num_spec_tokens=4)"
    ns = ("tensor_parallel_size=4, speculative_model='yuhuili/EAGLE-LLaMA3-Instruct-70B', num_speculative_tokens=4, speculative_draft_tensor_parallel_size=1, "
          "use_v2_block_manager=True, max_model_len=8192, gpu_memory_utilization=0.9, dtype='auto', kv_cache_dtype='auto', enforce_eager=False, block_size=16, swap_space=4")
    cfg = cfg_line(root, "torch.bfloat16", 8192, 4, False, ", use_v2_block_manager=True, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=False")
    logs = vb.startup_v0(s, "0.6.1.post2", root, ns, cfg, blocks, 8192, 32.93, 0, 0, 0.9, spec=spec, ref_api=("api_server.py:495", "api_server.py:496"))
    logs = [(t, l.replace("llm_engine.py:174] Initializing", "llm_engine.py:223] Initializing").replace("gpu_executor.py:84] # GPU blocks", "distributed_gpu_executor.py:57] # GPU blocks")) for t, l in logs]
    logs.insert(3, (s + 4, f"INFO {ts(s + 4)} spec_decode_worker.py:183] Configuring SpecDecodeWorker with proposer=<class 'vllm.spec_decode.multi_step_worker.MultiStepWorker'>"))
    logs.insert(4, (s + 4.1, f"INFO {ts(s + 4)} spec_decode_worker.py:197] [Speculative Decoding] Use batch expansion for scoring proposals."))
    logs.insert(5, (s + 4.2, f"INFO {ts(s + 4)} spec_decode_worker.py:176] Configuring SpecDecodeWorker with sampler=<class 'vllm.model_executor.layers.rejection_sampler.RejectionSampler'>"))
    st = vb.v0_stats(c.reqs, t0 - 60, t0 + 600, pool, ref="metrics.py:351")
    L = []
    for t, l in st:
        L.append((t, l))
        stp = sum(r.steps_by(t) for r in c.reqs)
        if stp:
            L.append((t + .001, f"INFO {ts(t)} metrics.py:367] Speculative metrics: Draft acceptance rate: {acc:.3f}, System efficiency: {eff:.3f}, "
                                f"Number of speculative tokens: {k}, Number of accepted tokens: {round(stp * k * acc)}, Number of draft tokens: {stp * k}, "
                                f"Number of emitted tokens: {sum(max(0, r.gen_by(t) - 1) for r in c.reqs)}."))
    logs += L
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     10.0.3.5:{47000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--tensor-parallel-size", "4", "--speculative-model", "yuhuili/EAGLE-LLaMA3-Instruct-70B",
            "--num-speculative-tokens", "4", "--speculative-draft-tensor-parallel-size", "1", "--use-v2-block-manager", "--max-model-len", "8192"]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.6.1.post2", root, root, 8192, int(s + 90)),
              engine_args={"argv": argv, "args": vb.args_of(argv)}, model_config=vb.llama(80, 8192, 64, 8, 28672, mpe=131072),
              gpu=h100s(c, 4, 74210), logs=logs, endpoint="http://h100x4-eval:8000",
              notes="Llama-3.1-70B-Instruct TP4 with EAGLE speculation, ShareGPT-style chat at low QPS; the speed-up is far from the 2x the EAGLE paper reports.")
    add_spec(c, k, acc, eff)


# ------------------------------------------------------------ 2 #7604 chunked prefill 4096, 40k prompts (holdout-16)
def chunked():
    cid = "zzs-chunked-4096-40k-llama70b-tp8"
    t0 = vb.utc(2024, 8, 16, 18, 30, 0)
    interval, n = 10.0, 40
    blocks = 85000; pool = blocks * 16  # ~1.36M tokens at 40,960 B/token/GPU
    root = "gradientai/Llama-3-70B-Instruct-Gradient-1048k"
    mml = 1048576
    chunk_s, P, G = 0.45, 40000, 256
    c = Case(cid=cid, version="0.5.4", v0=True, model_name=root, model_root=root, max_model_len=mml, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="6553", gpu_memory_utilization="0.9", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    arr = t0 + 2.0
    per = 10 * chunk_s  # 40,000 tokens -> 10 chunks of <=4,096
    reqs = []
    for i in range(50):
        r = Req(i, arr, P, 0, G, G, "length")
        r.t_sched = arr + i * per; r.t_first = r.t_sched + per; r.step_s = chunk_s
        r.t_end = r.t_first + r.steps() * chunk_s
        reqs.append(r)
    c.reqs = reqs
    pf_end = arr + 50 * per

    def it_fn(cc, t):
        obs = []
        tt = arr
        while tt + chunk_s <= t:
            run = sum(1 for r in reqs if r.t_first <= tt < r.t_end)
            obs.append(4096 if tt < pf_end else max(1, run))
            tt += chunk_s
        return obs
    c.iter_fn = it_fn
    s = t0 - 1500
    ns = ("model='gradientai/Llama-3-70B-Instruct-Gradient-1048k', tensor_parallel_size=8, enable_chunked_prefill=True, max_num_batched_tokens=4096, "
          "trust_remote_code=True, dtype='auto', kv_cache_dtype='auto', gpu_memory_utilization=0.9, enforce_eager=False, block_size=16, swap_space=4")
    cfg = cfg_line(root, "torch.bfloat16", mml, 8, False, ", use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False")
    logs = vb.startup_v0(s, "0.5.4", root, ns, cfg, blocks, mml, 16.43, 0, 0, 0.9)
    logs = [(t, l.replace("gpu_executor.py:84] # GPU blocks", "distributed_gpu_executor.py:56] # GPU blocks")) for t, l in logs]
    logs.insert(3, (s + 4, f"INFO {ts(s + 4)} config.py:890] Chunked prefill is enabled with max_num_batched_tokens=4096."))
    logs += vb.v0_stats(c.reqs, t0 - 10, t0 + (n - 1) * interval, pool, ref="metrics.py:406")
    for r in reqs:
        logs.append((r.t_arr + .002 + r.rid * 0.001, f'INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--tensor-parallel-size", "8", "--enable-chunked-prefill",
            "--max-num-batched-tokens", "4096", "--trust-remote-code"]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.5.4", root, root, mml, int(s + 90)),
              engine_args={"argv": argv, "args": vb.args_of(argv)}, model_config=vb.llama(80, 8192, 64, 8, 28672, mpe=1048576, extra={"rope_theta": 2804339835.0}),
              gpu=h100s(c, 8, 74890), logs=logs, endpoint="http://h100x8-bench:8000",
              notes="Batch job: 50 prompts of 40,000 tokens, 256 output tokens each, all sent at once, to measure how chunked prefill (max_num_batched_tokens 4096) changes throughput; it is slower than without chunked prefill.")


# ------------------------------------------------------------ 3 #4760 3090 enforce-eager (holdout-16)
def eager3090():
    cid = "zzs-3090-eager-2tps-one-line"
    rnd = random.Random(4760)
    t0 = vb.utc(2024, 5, 11, 8, 30, 0)
    interval, n = 10.0, 61
    blocks = 4100; pool = blocks * 16
    root = "/data/models_temp/functionary-small-v2.4/"
    c = Case(cid=cid, version="0.4.2", v0=True, model_name="functionary", model_root=root, max_model_len=2048, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="2048", gpu_memory_utilization="0.94", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    loop(c, rnd, t0 - 60, t0 + 600, 1, (380, 620), (100, 300), 0.030, lambda p: 0.05 + p * 0.0002, think=(8, 40), maxtok=1024)
    s = t0 - 600
    ns = ("served_model_name='functionary', grammar_sampling=False, model='/data/models_temp/functionary-small-v2.4/', tokenizer=None, dtype='bfloat16', "
          "kv_cache_dtype='auto', max_model_len=2048, guided_decoding_backend='outlines', tensor_parallel_size=1, block_size=16, enable_prefix_caching=False, "
          "gpu_memory_utilization=0.94, enforce_eager=True, max_num_seqs=256")
    cfg = cfg_line(root, "torch.bfloat16", 2048, 1, True, ", enable_prefix_caching=False)").replace(", enable_prefix_caching=False))", ", enable_prefix_caching=False)")
    logs = vb.startup_v0(s, "0.4.2", root, ns, cfg, blocks, 2048, 13.4966, 0, 0, 0.94, ref_api=("server_vllm.py:472", "server_vllm.py:473"))
    logs = [(t, l) for t, l in logs if "CUDA graphs" not in l and "Graph capturing" not in l]
    logs += vb.v0_stats(c.reqs, t0 - 60, t0 + 600, pool, ref="metrics.py:334")
    for r in c.reqs:
        logs.append((r.t_arr + .002, f'INFO:     127.0.0.1:{43000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 23_080
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24576 * MiB, "memory_used": used * MiB,
                               "processes": [{"pid": 912, "name": "python", "used_memory": (used - 260) * MiB}]}])
    argv = ["python", "server_vllm.py", "--model", "/data/models_temp/functionary-small-v2.4/", "--served-model-name", "functionary", "--dtype=bfloat16",
            "--max-model-len", "2048", "--host", "0.0.0.0", "--port", "8000", "--enforce-eager", "--gpu-memory-utilization", "0.94"]
    mc = {"architectures": ["MistralForCausalLM"], "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 32768,
          "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
          "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 32004}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.4.2", "functionary", root, 2048, int(s + 90)),
              engine_args={"argv": argv, "args": vb.args_of(argv)}, model_config=mc, gpu=gpu, logs=logs, endpoint="http://0.0.0.0:8000",
              notes="functionary-small-v2.4 on one RTX 3090 with --enforce-eager; one user. A stats line showed 'Avg generation throughput: 2.2 tokens/s' and the user asks why generation is slow.")


# ------------------------------------------------------------ 4 #4966 gemma-7b 12 tok/s (holdout-16)
def gemma():
    cid = "zzs-gemma7b-v041-12tps-no-gpu"
    rnd = random.Random(4966)
    t0 = vb.utc(2024, 5, 22, 2, 25, 0)
    interval, n = 10.0, 61
    # gemma-7b: 28 layers x 16 KV heads x 256 x 2 x 2 B = 458,752 B/token; ~18.6 GiB left on a 40 GB card -> ~43.5k tokens
    blocks = 2720; pool = blocks * 16
    root = "/models/gemma-7b-it"
    c = Case(cid=cid, version="0.4.1", v0=True, model_name="gemma7b", model_root=root, max_model_len=8192, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, num_gpu_blocks=str(blocks), num_cpu_blocks="468", gpu_memory_utilization="0.9", enable_prefix_caching="False", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    loop(c, rnd, t0 - 60, t0 + 600, 1, (20, 32), (300, 420), 0.0833, lambda p: 0.08, think=(5, 25), maxtok=4096)
    logs = vb.v0_stats(c.reqs, t0 - 60, t0 + 600, pool, ref="metrics.py:229")
    for r in c.reqs:
        logs.append((r.t_arr, f"INFO {ts(r.t_arr)} async_llm_engine.py:524] Received request {__import__('hashlib').md5(str(r.rid).encode()).hexdigest()}: prompt: "
                              "'<bos><start_of_turn>user\\n...<end_of_turn>\\n<start_of_turn>model\\n', sampling_params: SamplingParams(n=1, best_of=1, presence_penalty=0.0, "
                              "frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.8, top_p=0.8, top_k=1, min_p=0.0, seed=None, use_beam_search=False, "
                              "length_penalty=1.0, early_stopping=False, stop=[], stop_token_ids=[1], include_stop_str_in_output=False, ignore_eos=False, max_tokens=4096, "
                              "min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None), "
                              "prompt_token_ids: None, lora_request: None."))
        logs.append((r.t_arr + .002, f'INFO:     127.0.0.1:{45000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--served-model-name", "gemma7b"]
    mc = {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_act": "gelu", "hidden_size": 3072, "intermediate_size": 24576, "head_dim": 256,
          "max_position_embeddings": 8192, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 16, "rms_norm_eps": 1e-06,
          "rope_theta": 10000.0, "torch_dtype": "bfloat16", "vocab_size": 256000}
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.4.1", "gemma7b", root, 8192, int(t0 - 3000)),
              engine_args={"argv": argv, "args": vb.args_of(argv)}, model_config=mc, gpu=[], logs=logs, endpoint="http://127.0.0.1:8000",
              notes="gemma-7b served with vLLM 0.4.1 (python3.11, torch 2.2.1 cu118); one request takes ~30 s and six stats lines. GPU not recorded.")


if __name__ == "__main__":
    eagle(); chunked(); eager3090(); gemma()
    print("ok")
