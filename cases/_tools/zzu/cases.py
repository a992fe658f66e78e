"""Writer zzu's cases (round 16): builds cases/zzu-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzu/cases.py
gen.py is zzq's builder copied unchanged. Seeded, no wall clock. Numbers not quoted are under `assumed:` in each case.yaml.
Start-up failures carry refused scrapes only (the server never listened), the log, NVML samples and the configs.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V026 = "zzj-qwen72b-awq-a800-10854-prompt"  # vLLM 0.2.6 bundle: families / buckets


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv, start=2):
    a, i = {}, start
    while i < len(argv):
        if not argv[i].startswith("--"):
            i += 1; continue
        k = argv[i][2:]
        if "=" in k:
            k, v = k.split("=", 1); a[k] = v; i += 1; continue
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


def failed_start(cid, t0, n, interval, endpoint, err, logs, engine_args, mc, gpu, notes):
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.dumps({"t": round(t0 + k * interval, 3), "error": err}) for k in range(n)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": t0,
           "ended_at": t0 + (n - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    (out / "model_config.json").write_text(json.dumps(mc, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


# ------------------------------------------------ 1: vllm#2352 (dev-16) healthy, memory looks full
def solar_healthy():
    cid = "zzu-solar-gptq-a100-69gb-healthy"
    t0 = utc(2024, 1, 5, 9, 0, 0)
    rnd = random.Random(2352)
    interval, n = 10.0, 61
    reqs, rid = [], 0
    for u in range(3):
        t = t0 - 60 + rnd.uniform(0, 15)
        while t < t0 + 610:
            p, g = rnd.randint(200, 1500), rnd.randint(100, 500)
            reqs.append(Req(rid, t, p, 0, g, 512, "stop")); rid += 1
            t += 0.2 + g * 0.016 + rnd.uniform(2, 12)
    root = "Inferless/SOLAR-10.7B-Instruct-v1.0-GPTQ"
    blocks = 20744          # (0.85 x 79.15 GiB - 5.30 GiB weights - 1.20 GiB profile peak) / (16 x 192 KiB)
    pool = blocks * 16
    c = Case(cid=cid, version="0.2.6", v0=True, model_name=root, model_root=root, max_model_len=4096, start=t0, n_scrapes=n,
             interval=interval, labels_cc={}, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V026)
    gen.simulate(c, reqs, lambda k: rnd.uniform(0.0150, 0.0160) + 0.0004 * k, lambda r, k: 0.03 + r.prompt * 0.00008 + rnd.uniform(0.0, 0.03), gen_reserve=False)
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--quantization", "gptq", "--dtype", "float16",
            "--gpu-memory-utilization", "0.85", "--host", "0.0.0.0", "--port", "8000"]
    s = t0 - 3600
    logs = [(s, f"INFO {ts(s)} api_server.py:727] args: Namespace(host='0.0.0.0', port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
                f"allowed_headers=['*'], served_model_name=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, model='{root}', "
                f"tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='float16', "
                f"max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, block_size=16, seed=0, "
                f"swap_space=4, gpu_memory_utilization=0.85, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization='gptq', "
                f"enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, engine_use_ray=False, disable_log_requests=True, max_log_len=None)"),
            (s + 1, f"WARNING {ts(s + 1)} config.py:175] gptq quantization is not fully optimized yet. The speed can be slower than non-quantized models."),
            (s + 2, f"INFO {ts(s + 2)} llm_engine.py:73] Initializing an LLM engine with config: model='{root}', tokenizer='{root}', tokenizer_mode=auto, revision=None, "
                    f"tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, "
                    f"quantization=gptq, enforce_eager=False, seed=0)"),
            (s + 40, f"INFO {ts(s + 40)} llm_engine.py:222] # GPU blocks: {blocks}, # CPU blocks: 1365"),
            (s + 42, f"INFO {ts(s + 42)} model_runner.py:403] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. "
                     f"To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
            (s + 58, f"INFO {ts(s + 58)} model_runner.py:437] Graph capturing finished in 16 secs."),
            (s + 60, "INFO:     Started server process [1]"),
            (s + 60.1, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    tt = t0 - 60
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    while tt + 5 <= t0 + (n - 1) * interval:
        a, b = tt, tt + 5
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        blk = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        if run or pt or gt:
            logs.append((b, f"INFO {ts(b)} llm_engine.py:649] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                            f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blk * 16 / pool:.1f}%, CPU KV cache usage: 0.0%"))
        tt = b
    logs += [(r.t_arr + .002, f'INFO:     10.8.0.21:{50000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    used = 70_640 * MiB     # ~69 GiB: 0.85 x 80 GiB budget + CUDA context + graph pool
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB, "memory_used": used + 4 * MiB,
                               "processes": [{"pid": 1, "name": "python", "used_memory": used}]}])
    mc = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
          "intermediate_size": 14336, "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 48,
          "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000.0, "tie_word_embeddings": False,
          "torch_dtype": "float16", "transformers_version": "4.36.2", "use_cache": True, "vocab_size": 32000,
          "quantization_config": {"bits": 4, "group_size": 128, "damp_percent": 0.1, "desc_act": True, "sym": True, "true_sequential": True,
                                  "model_name_or_path": None, "model_file_base_name": "model", "quant_method": "gptq"}}
    orig = gen.scrape
    def scrape1(cc_, tt_, cr_):
        text = orig(cc_, tt_, cr_).split("# HELP vllm:cache_config_info")[0]
        a = tt_ - 5
        pt = sum(r.prompt for r in reqs if a < r.t_first <= tt_)
        gt = sum(r.gen_by(tt_) - r.gen_by(a) for r in reqs)
        text = re.sub(r"(vllm:avg_prompt_throughput_toks_per_s\{[^}]*\}) \S+", lambda m: f"{m.group(1)} {pt / 5.0!r}", text)
        return re.sub(r"(vllm:avg_generation_throughput_toks_per_s\{[^}]*\}) \S+", lambda m: f"{m.group(1)} {gt / 5.0!r}", text)
    gen.scrape = scrape1
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.2.6", root, root, 4096, int(s + 60)),
              engine_args={"argv": argv, "args": args_of(argv, 3)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Benchmark of SOLAR-10.7B GPTQ on one A100 80GB. Operator's question: nvidia-smi shows ~69 GB used although the 4-bit weights are 5.67 GB; is vLLM wasting memory?",
              endpoint="http://solar-gptq-bench:8000")
    gen.scrape = orig


def gemma_like_gpu(t0, n, interval, name, total, used_list, pids):
    out = []
    for k in range(n):
        devs = []
        for i, u in enumerate(used_list(k)):
            procs = [{"pid": pids[i], "name": "python3" if i == 0 else "VllmWorkerProcess", "used_memory": u}] if u > 0 else []
            devs.append({"index": i, "name": name, "memory_total": total, "memory_used": u + 300 * MiB, "processes": procs})
        out.append({"t": round(t0 + k * interval, 3), "devices": devs})
    return out


# ------------------------------------------------ 2: vllm#5248 (holdout-16) deepseek-coder 6.7b on 2xT4
def dscoder_t4():
    cid = "zzu-dscoder67b-2xt4-507-blocks"
    t0 = utc(2024, 6, 12, 8, 11, 0)
    root = "/cm/deepseek-coder-6.7b-instruct/"
    argv = ["python", "-m", "vllm.entrypoints.api_server", "--model=/cm/deepseek-coder-6.7b-instruct/", "--tensor-parallel-size=2",
            "--trust-remote-code", "--dtype=float16"]
    s = t0
    W = "(VllmWorkerProcess pid=8312)"
    L = [(s + 1, f"INFO {ts(s + 1)} config.py:1130] Downcasting torch.bfloat16 to torch.float16."),
         (s + 2, f"INFO {ts(s + 2)} llm_engine.py:161] Initializing an LLM engine (v0.4.3) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                 f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.float16, "
                 f"max_seq_len=16384, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, disable_custom_all_reduce=False, quantization=None, "
                 f"enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
                 f"seed=0, served_model_name={root})"),
         (s + 20, f"INFO {ts(s + 20)} selector.py:120] Cannot use FlashAttention-2 backend for Volta and Turing GPUs."),
         (s + 20.1, f"INFO {ts(s + 20)} selector.py:51] Using XFormers backend."),
         (s + 20.2, f"{W} INFO {ts(s + 20)} selector.py:120] Cannot use FlashAttention-2 backend for Volta and Turing GPUs."),
         (s + 20.3, f"{W} INFO {ts(s + 20)} selector.py:51] Using XFormers backend."),
         (s + 22, f"{W} INFO {ts(s + 22)} multiproc_worker_utils.py:215] Worker ready; awaiting tasks"),
         (s + 24, f"INFO {ts(s + 24)} custom_all_reduce_utils.py:169] reading GPU P2P access cache from /root/.config/vllm/gpu_p2p_access_cache_for_0,1.json"),
         (s + 24.1, f"WARNING {ts(s + 24)} custom_all_reduce.py:166] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly."),
         (s + 70, f"INFO {ts(s + 70)} model_runner.py:146] Loading model weights took 6.2760 GB"),
         (s + 70.1, f"{W} INFO {ts(s + 70)} model_runner.py:146] Loading model weights took 6.2760 GB"),
         (s + 83, f"INFO {ts(s + 83)} distributed_gpu_executor.py:45] # GPU blocks: 507, # CPU blocks: 1024"),
         (s + 83.1, f"ERROR {ts(s + 83)} worker_base.py:145] Error executing method initialize_cache. This might cause deadlock in distributed execution."),
         (s + 83.2, f"ERROR {ts(s + 83)} worker_base.py:145] Traceback (most recent call last):"),
         (s + 83.3, f"ERROR {ts(s + 83)} worker_base.py:145]   File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/worker_base.py\", line 137, in execute_method"),
         (s + 83.4, f"ERROR {ts(s + 83)} worker_base.py:145]     return executor(*args, **kwargs)"),
         (s + 83.5, f"ERROR {ts(s + 83)} worker_base.py:145]   File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py\", line 177, in initialize_cache"),
         (s + 83.6, f"ERROR {ts(s + 83)} worker_base.py:145]     raise_if_cache_size_invalid(num_gpu_blocks, self.cache_config.block_size,"),
         (s + 83.7, f"ERROR {ts(s + 83)} worker_base.py:145]   File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py\", line 357, in raise_if_cache_size_invalid"),
         (s + 83.8, f"ERROR {ts(s + 83)} worker_base.py:145]     raise ValueError("),
         (s + 83.9, f"ERROR {ts(s + 83)} worker_base.py:145] ValueError: The model's max seq len (16384) is larger than the maximum number of tokens that can be stored in KV cache (8112). "
                    f"Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
         (s + 84, f"ERROR {ts(s + 84)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 8312 died, exit code: -15"),
         (s + 84.1, f"INFO {ts(s + 84)} multiproc_worker_utils.py:123] Killing local vLLM worker processes")]
    interval, n = 5.0, 31
    # weights 6.29 GB (5.86 GiB) + profile peak; both ranks dead after ~85 s
    def used(k):
        t = k * interval
        if t < 22:
            return [0, 0]
        if t < 70:
            return [int(6.28 * GiB * min(1, (t - 22) / 45) + 0.45 * GiB)] * 2
        if t < 85:
            return [int(13.1 * GiB)] * 2
        return [0, 0]
    gpu = gemma_like_gpu(t0, n, interval, "Tesla T4", 15360 * MiB, used, [8290, 8312])
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 32013, "eos_token_id": 32021, "hidden_act": "silu",
          "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 16384, "model_type": "llama",
          "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-06,
          "rope_scaling": {"factor": 4.0, "type": "linear"}, "rope_theta": 100000, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
          "transformers_version": "4.33.1", "use_cache": True, "vocab_size": 32256}
    failed_start(cid, t0, n, interval, "http://10.0.3.7:8000", "connection refused: server not listening (engine start-up failed)", L,
                 {"argv": argv, "args": args_of(argv, 3)}, mc, gpu,
                 "vllm.entrypoints.api_server with TP=2 on two Tesla T4 (16 GB each). The engine died during start-up; the operator's reading: 'KV cache is only allocated on the first device'.")


# ------------------------------------------------ 3: vllm#7593 (holdout-16) Gemma 2 9B, 8x L4, graph-capture OOM
def gemma_l4():
    cid = "zzu-gemma2-9b-8xl4-graph-capture-oom"
    t0 = utc(2024, 8, 19, 7, 50, 0)
    root = "google/gemma-2-9b-it"
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--tensor-parallel-size", "8", "--port", "8000"]
    s = t0
    pids = [13100, 13105, 13106, 13107, 13108, 13109, 13110, 13111]
    def w(i):
        return "" if i == 0 else f"(VllmWorkerProcess pid={pids[i]}) "
    L = [(s + 1, f"INFO {ts(s + 1)} api_server.py:339] vLLM API server version 0.5.4"),
         (s + 1.1, f"INFO {ts(s + 1)} api_server.py:340] args: Namespace(host=None, port=8000, model='{root}', tensor_parallel_size=8, gpu_memory_utilization=0.9, max_model_len=None, enforce_eager=False, max_num_seqs=256)"),
         (s + 3, f"INFO {ts(s + 3)} config.py:820] Defaulting to use mp for distributed inference"),
         (s + 3.1, f"INFO {ts(s + 3)} llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                   f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
                   f"dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=1, "
                   f"disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
                   f"decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, "
                   f"served_model_name={root}, use_v2_block_manager=False, enable_prefix_caching=False)")]
    for i in range(8):
        L.append((s + 10 + i * .01, f"{w(i)}INFO {ts(s + 10)} selector.py:79] Using Flashinfer backend."))
    for i in range(8):
        L.append((s + 43 + i * .01, f"{w(i)}INFO {ts(s + 43)} model_runner.py:732] Loading model weights took 2.3463 GB"))
    L.append((s + 48, f"INFO {ts(s + 48)} distributed_gpu_executor.py:56] # GPU blocks: 22982, # CPU blocks: 6241"))
    for i in range(8):
        L.append((s + 52 + i * .01, f"{w(i)}INFO {ts(s + 52)} model_runner.py:1024] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. "
                                    f"To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."))
        L.append((s + 52.005 + i * .01, f"{w(i)}INFO {ts(s + 52)} model_runner.py:1028] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, "
                                        f"consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."))
    e = s + 71
    W5 = f"(VllmWorkerProcess pid={pids[5]})"
    tb = ["Exception in worker VllmWorkerProcess while processing method initialize_cache: CUDA out of memory. Tried to allocate 256.00 MiB. GPU  has a total capacity of 22.03 GiB of which 95.06 MiB is free. Including non-PyTorch memory, this process has 21.93 GiB memory in use. Of the allocated memory 21.05 GiB is allocated by PyTorch, with 344.00 MiB allocated in private pools (e.g., CUDA Graphs), and 140.31 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables), Traceback (most recent call last):",
          "  File \"/usr/local/lib/python3.10/dist-packages/vllm/executor/multiproc_worker_utils.py\", line 223, in _run_worker_process",
          "    output = executor(*args, **kwargs)",
          "  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py\", line 214, in initialize_cache",
          "    self._warm_up_model()",
          "  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py\", line 230, in _warm_up_model",
          "    self.model_runner.capture_model(self.gpu_cache)",
          "  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py\", line 1135, in capture_model",
          "    graph_runner.capture(**capture_inputs)",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU  has a total capacity of 22.03 GiB of which 95.06 MiB is free."]
    for j, line in enumerate(tb):
        L.append((e + j * .001, f"{W5} ERROR {ts(e)} multiproc_worker_utils.py:226] {line}"))
    L.append((e + 1, f"ERROR {ts(e + 1)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid {pids[5]} died, exit code: 1"))
    L.append((e + 1.1, f"INFO {ts(e + 1)} multiproc_worker_utils.py:123] Killing local vLLM worker processes"))
    interval, n = 5.0, 31
    total = 23034 * MiB
    def used(k):
        t = k * interval
        if t < 10:
            return [0] * 8
        if t < 45:
            return [int((2.19 * GiB) * min(1, (t - 10) / 33) + 0.5 * GiB)] * 8
        if t < 50:
            return [int(5.6 * GiB)] * 8
        if t < 72:
            return [int(min(21.93, 19.9 + (t - 50) * 0.1) * GiB)] * 8
        return [0] * 8
    gpu = gemma_like_gpu(t0, n, interval, "NVIDIA L4", total, used, pids)
    mc = {"architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "attn_logit_softcapping": 50.0, "bos_token_id": 2,
          "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
          "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 8192,
          "model_type": "gemma2", "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0,
          "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "torch_dtype": "bfloat16",
          "transformers_version": "4.42.4", "use_cache": True, "vocab_size": 256000}
    failed_start(cid, t0, n, interval, "http://gemma2-l4x8:8000", "connection refused: server not listening (engine start-up failed)", L,
                 {"argv": argv, "args": args_of(argv, 3)}, mc, gpu,
                 "Gemma 2 9B with TP=8 on 8x NVIDIA L4 (24 GB). Start-up dies while capturing CUDA graphs; the API server never listened.")


# ------------------------------------------------ 4: vllm#783 (holdout-16) opt-125m beside another process
def opt_other():
    cid = "zzu-opt125m-other-process-15g"
    t0 = utc(2023, 8, 17, 6, 30, 0)
    root = "facebook/opt-125m"
    s = t0 + 20
    blocks = 71215   # (0.90 x 44.56 GiB - 0.24 GiB weights - 0.75 GiB profile peak) / (16 x 36 KiB)
    L = [(s, f"INFO {ts(s)} llm_engine.py:70] Initializing an LLM engine with config: model='{root}', tokenizer='{root}', tokenizer_mode=auto, revision=None, "
             f"trust_remote_code=False, dtype=torch.float16, use_dummy_weights=False, download_dir=None, use_np_weights=False, tensor_parallel_size=1, seed=0)"),
         (s + 12, f"INFO {ts(s + 12)} llm_engine.py:196] # GPU blocks: {blocks}, # CPU blocks: 7281"),
         (s + 13, "Traceback (most recent call last):"),
         (s + 13.01, "  File \"/home/user/run_opt.py\", line 17, in <module>"),
         (s + 13.02, "    llm = LLM(model=\"facebook/opt-125m\",tensor_parallel_size=1)"),
         (s + 13.03, "  File \"/opt/conda/lib/python3.10/site-packages/vllm/entrypoints/llm.py\", line 66, in __init__"),
         (s + 13.04, "    self.llm_engine = LLMEngine.from_engine_args(engine_args)"),
         (s + 13.05, "  File \"/opt/conda/lib/python3.10/site-packages/vllm/engine/llm_engine.py\", line 220, in from_engine_args"),
         (s + 13.06, "    engine = cls(*engine_configs, distributed_init_method, devices, log_stats=not engine_args.disable_log_stats)"),
         (s + 13.07, "  File \"/opt/conda/lib/python3.10/site-packages/vllm/engine/llm_engine.py\", line 102, in __init__"),
         (s + 13.08, "    self._init_cache()"),
         (s + 13.09, "  File \"/opt/conda/lib/python3.10/site-packages/vllm/engine/llm_engine.py\", line 209, in _init_cache"),
         (s + 13.10, "    self._run_workers(\"init_cache_engine\", cache_config=self.cache_config)"),
         (s + 13.11, "  File \"/opt/conda/lib/python3.10/site-packages/vllm/worker/cache_engine.py\", line 97, in allocate_gpu_cache"),
         (s + 13.12, "    value_blocks = torch.empty("),
         (s + 13.13, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 GiB total capacity; 27.91 GiB already allocated; "
                     "565.31 MiB free; 27.93 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
                     "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")]
    interval, n = 5.0, 13
    total = 46068 * MiB
    other = 15_460 * MiB
    def used(k):
        t = k * interval
        if t < 20:
            return 0
        if t < 34:
            return int(1.4 * GiB)
        if t < 36:
            return int(28.4 * GiB)
        return 0
    gpu = []
    for k in range(n):
        u = used(k)
        procs = [{"pid": 40711, "name": "python train_ddp.py", "used_memory": other}]
        if u:
            procs.append({"pid": 51377, "name": "python run_opt.py", "used_memory": u})
        gpu.append({"t": round(t0 + k * interval, 3), "devices": [
            {"index": 0, "name": "NVIDIA A40", "memory_total": 46068 * MiB, "memory_used": 820 * MiB, "processes": []},
            {"index": 1, "name": "NVIDIA A40", "memory_total": total, "memory_used": other + u + 290 * MiB, "processes": procs}]})
    mc = {"_name_or_path": "facebook/opt-125m", "activation_dropout": 0.0, "activation_function": "relu", "architectures": ["OPTForCausalLM"],
          "attention_dropout": 0.0, "bos_token_id": 2, "do_layer_norm_before": True, "dropout": 0.1, "eos_token_id": 2, "ffn_dim": 3072,
          "hidden_size": 768, "init_std": 0.02, "layerdrop": 0.0, "max_position_embeddings": 2048, "model_type": "opt", "num_attention_heads": 12,
          "num_hidden_layers": 12, "pad_token_id": 1, "prefix": "</s>", "torch_dtype": "float16", "transformers_version": "4.21.0.dev0",
          "use_cache": True, "vocab_size": 50272, "word_embed_proj_dim": 768}
    failed_start(cid, t0, n, interval, "local-script:offline-LLM", "no /metrics endpoint: offline vllm.LLM() in a script, no HTTP server", L,
                 {"argv": ["python", "run_opt.py"], "args": {"model": root, "tensor-parallel-size": 1}}, mc, gpu,
                 "Offline vllm.LLM() on a shared workstation; the script sets CUDA_VISIBLE_DEVICES=1 after importing torch/vllm. Another user's training job holds ~15 GB on that GPU. No HTTP server, so no /metrics.")


if __name__ == "__main__":
    which = sys.argv[1:] or ["1", "2", "3", "4"]
    for k, f in (("1", solar_healthy), ("2", dscoder_t4), ("3", gemma_l4), ("4", opt_other)):
        if k in which:
            f(); print("built", f.__name__)
