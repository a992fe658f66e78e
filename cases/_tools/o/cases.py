"""Build the o-* bundles: /work/main/.venv/bin/python cases/_tools/o/cases.py"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import Case, Req, simulate, write, server_json, gpu_samples, cc_labels, stats_lines, access_lines, ts, ROOT

C = ROOT / "cases"
A100 = 85899345920; H100 = 85520809984; H200 = 150754820096; RTXP = 102641958912


def startup(t, pid, core, version, nondef, arch, mml, extra, kv_gib, kv_tok, conc, blocks, logref, warn=()):
    A, E = f"(APIServer pid={pid})", f"(EngineCore pid={core})"
    L = [(t, f"INFO {ts(t)} [__init__.py:216] Automatically detected platform cuda."),
         (t + 2, f"{A} INFO {ts(t+2)} [api_server.py:1947] vLLM API server version {version}"),
         (t + 2, f"{A} INFO {ts(t+2)} [utils.py:299] non-default args: {nondef}"),
         (t + 9, f"{A} INFO {ts(t+9)} [model.py:552] Resolved architecture: {arch}"),
         (t + 9, f"{A} INFO {ts(t+9)} [model.py:1677] Using max model len {mml}")]
    for i, w in enumerate(warn):
        L.append((t + 9.5 + i * 0.01, f"{A} {w.replace('@', ts(t+9))}"))
    for i, x in enumerate(extra):
        L.append((t + 20 + i, f"{E} INFO {ts(t+20+i)} {x}"))
    L += [(t + 95, f"{E} INFO {ts(t+95)} [gpu_worker.py:379] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 95.1, f"{E} INFO {ts(t+95)} [kv_cache_utils.py:1313] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 95.2, f"{E} INFO {ts(t+95)} [kv_cache_utils.py:1317] Maximum concurrency for {mml:,} tokens per request: {conc:.2f}x"),
          (t + 123, f"{A} INFO {ts(t+123)} [{logref}] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (t + 124, f"{A} INFO {ts(t+124)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


# ---------------------------------------------------------------- 1 GLM-4.7-Flash fp8 KV
def case_glm():
    rng = random.Random(38652)
    t0 = 1775030400.0  # 2026-04-01 08:00 UTC
    c = Case("o-glm47-flash-fp8-kv-multiturn-garbage", "0.18.1", False, "zai-org/GLM-4.7-Flash", "zai-org/GLM-4.7-Flash",
             8192, t0 + 600, 41, 15.0, {}, 416448, 64, 256)
    reqs, t, i = [], t0 + 300, 0
    while t < c.start + 600:
        t += rng.expovariate(0.4)
        multi = rng.random() < 0.6
        p = rng.randint(900, 3800) if multi else rng.randint(40, 300)
        g = 1024 if multi else rng.randint(120, 260)
        reqs.append(Req(i, round(t, 3), p, min(p - 1, 448) if multi else 0, g, 1024, "length" if multi else "stop")); i += 1
    simulate(c, reqs, lambda n: 0.0105 + 0.0004 * n, lambda r, n: 0.03 + (r.prompt - r.cached) / 30000.0)
    c.labels_cc = cc_labels(block_size=64, cache_dtype="fp8", num_gpu_blocks=6507, gpu_memory_utilization=0.9,
                            _block_size_resolved="True", user_specified_block_size="False")
    nondef = "{'model_tag': 'zai-org/GLM-4.7-Flash', 'model': 'zai-org/GLM-4.7-Flash', 'trust_remote_code': True, 'max_model_len': 8192, 'kv_cache_dtype': 'fp8'}"
    L = startup(t0, 1, 188, "0.18.1", nondef, "Glm4MoeLiteForCausalLM", 8192,
                ["[cuda.py:331] Using FLASHMLA attention backend out of potential backends: ['FLASHMLA', 'FLASH_ATTN_MLA', 'TRITON_MLA']",
                 "[gpu_model_runner.py:3582] Model loading took 58.3127 GiB memory and 61.204 seconds"],
                10.50, 416448, 50.84, 6507, "loggers.py:176")
    L += stats_lines(c, t0 + 300, c.start + 600, 1, "loggers.py:259") + access_lines(c, 1, "/v1/chat/completions")
    mc = {"architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "glm4_moe_lite", "hidden_size": 2048, "num_hidden_layers": 47,
          "num_attention_heads": 20, "num_key_value_heads": 20, "kv_lora_rank": 512, "q_lora_rank": 768, "qk_nope_head_dim": 192,
          "qk_rope_head_dim": 64, "v_head_dim": 256, "n_routed_experts": 64, "num_experts_per_tok": 4, "n_shared_experts": 1,
          "first_k_dense_replace": 1, "intermediate_size": 10240, "moe_intermediate_size": 1536, "vocab_size": 154880,
          "max_position_embeddings": 202752, "rope_theta": 1000000, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": H100, "memory_used": 77409435648,
            "processes": [{"pid": 188, "name": "VLLM::EngineCore", "used_memory": 76856836096}]}]
    argv = ["vllm", "serve", "zai-org/GLM-4.7-Flash", "--kv-cache-dtype", "fp8", "--trust-remote-code", "--max-model-len", "8192"]
    out = C / c.cid
    write(c, out / "bundle", server=server_json("0.18.1", c.model_name, c.model_root, 8192, int(t0 + 124)),
          engine_args={"argv": argv, "args": {"kv-cache-dtype": "fp8", "trust-remote-code": True, "max-model-len": 8192}},
          model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://10.20.0.5:8000",
          notes="Support chat on one H100, GLM-4.7-Flash with fp8 KV. Users report that answers in ongoing conversations (system prompt + history) turn into garbage such as 'a S componentes_obs Worce!!!!!!!!!!!!' while first questions are fine. /metrics every 15 s for 10 min, server log, a sample of 24 recent chats (prompts.jsonl).")
    sysm = "You are a helpful sales assistant for a SaaS product."
    P = []
    qs = ["What pricing plans do you offer?", "Does the Pro plan include SSO?", "Can I export my data to CSV?", "How do I add a teammate?",
          "What happens when my trial ends?", "Is there a discount for nonprofits?", "Which regions host the data?", "Can I pay yearly?"]
    for k in range(24):
        if k % 3 == 2:
            P.append({"messages": [{"role": "user", "content": ["Say hello in Finnish", "What is 17 * 23?", "Name three prime numbers."][k % 3 if k % 3 < 3 else 0]}]})
        else:
            m = [{"role": "system", "content": sysm}]
            for j in range(1 + k % 4):
                m.append({"role": "user", "content": qs[(k + j) % len(qs)]})
                m.append({"role": "assistant", "content": "Sure - here is an overview of that topic for your team, including limits, billing and the steps to enable it."})
            m.append({"role": "user", "content": qs[(k + 5) % len(qs)]})
            P.append({"messages": m})
    (out / "prompts.jsonl").write_text("\n".join(json.dumps(p) for p in P) + "\n")


# ---------------------------------------------------------------- 2 Qwen3.5-0.8B MTP
def case_qwen08():
    rng = random.Random(39680)
    t0 = 1775732400.0  # 2026-04-09 11:00 UTC
    c = Case("o-qwen35-08b-mtp-slower-confounded", "0.19.0", False, "Qwen/Qwen3.5-0.8B", "Qwen/Qwen3.5-0.8B",
             32768, t0 + 420, 49, 10.0, {}, 2_913_280, 1056, 256, spec_k=1, spec_pos_rates=[0.966])
    reqs, t, i = [], t0 + 300, 0
    while t < c.start + 480:
        p = rng.randint(2450, 3050); g = rng.randint(220, 300)
        r = Req(i, round(t, 3), p, rng.choice([0, 0, 1056, 1056, 0]), g, 1024, "stop", mm=1)
        r.tps = 1.966
        reqs.append(r); i += 1
        steps = math.ceil((g - 1) / 1.966)
        t += 0.12 + (p - r.cached) / 60000.0 + steps * 0.014 + 0.06
    simulate(c, reqs, lambda n: 0.014, lambda r, n: 0.12 + (r.prompt - r.cached) / 60000.0)
    c.labels_cc = cc_labels(block_size=1056, num_gpu_blocks=2759, mamba_cache_mode="align", mamba_block_size=1056,
                            _block_size_resolved="True")
    nondef = "{'model_tag': 'Qwen/Qwen3.5-0.8B', 'model': 'Qwen/Qwen3.5-0.8B', 'max_model_len': 32768, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 1}}"
    L = startup(t0, 1409788, 1409921, "0.19.0", nondef, "Qwen3_5ForConditionalGeneration", 32768,
                ["[gpu_model_runner.py:3582] Model loading took 1.7412 GiB memory and 9.113 seconds"], 68.20, 2_913_280, 88.90, 2759, "loggers.py:176")
    L += stats_lines(c, t0 + 300, c.start + 480, 1409788, "loggers.py:259") + access_lines(c, 1409788, "/v1/chat/completions")
    mc = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 256, "full_attention_interval": 4, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 6,
        "linear_num_key_heads": 16, "linear_num_value_heads": 16, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "mtp_num_hidden_layers": 1, "vocab_size": 248320, "max_position_embeddings": 262144,
        "torch_dtype": "bfloat16"}, "vision_config": {"depth": 12, "hidden_size": 768}, "torch_dtype": "bfloat16"}
    dev = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": A100, "memory_used": 78112837632,
            "processes": [{"pid": 1409921, "name": "VLLM::EngineCore", "used_memory": 77560238080}]}]
    argv = ["vllm", "serve", "Qwen/Qwen3.5-0.8B", "--max-model-len", "32768", "--speculative-config", '{"method":"mtp","num_speculative_tokens":1}']
    write(c, C / c.cid / "bundle", server=server_json("0.19.0", c.model_name, c.model_root, 32768, int(t0 + 124)),
          engine_args={"argv": argv, "args": {"max-model-len": 32768, "speculative-config": '{"method":"mtp","num_speculative_tokens":1}'}},
          model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://10.20.0.8:8000",
          notes="Qwen3.5-0.8B with MTP on, one client sending image+text requests back to back. Complaint: slower than without MTP. For comparison the operator has one line from a later run of the same server without MTP: 'Avg prompt throughput: 967.2 tokens/s, Avg generation throughput: 342.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 44.5%, MM cache hit rate: 16.7%' (different requests). /metrics every 10 s for 8 min, server log.")


# ---------------------------------------------------------------- 3 spec 6, capture 42 truncated
def case_spark():
    rng = random.Random(54933)
    t0 = 1788336000.0  # 2026-09-02 08:00 UTC
    c = Case("o-spec6-capture-42-truncated-eager", "0.28.0", False, "Llama-3.3-70B-Instruct-FP4", "nvidia/Llama-3.3-70B-Instruct-FP4",
             32768, t0 + 500, 37, 10.0, {}, 360448, 16, 6, spec_k=6, spec_pos_rates=[0.78, 0.56, 0.38, 0.22, 0.11, 0.05])
    reqs = []
    # 8 closed-loop clients
    clients = [t0 + 200 + k * 0.3 for k in range(8)]
    i = 0
    # iterative closed loop: simulate in rounds
    import heapq
    pend = [(tt, k) for k, tt in enumerate(clients)]
    heapq.heapify(pend)
    while pend:
        tt, k = heapq.heappop(pend)
        if tt > c.start + 360 + 200:
            continue
        r = Req(i, round(tt, 3), rng.randint(980, 1070), 0, 256, 256, "length"); r.tps = 3.1; i += 1
        reqs.append(r)
        simulate(c, reqs, lambda n: 0.735 if n >= 6 else 0.14, lambda r_, n: 0.9)
        heapq.heappush(pend, (r.t_end + 0.05, k))
    # finished timeline: running count is 6 whenever >=6 clients are in flight; step time of a request follows the
    # batch at its admission (6 -> eager 42-token verify)
    c.labels_cc = cc_labels(num_gpu_blocks=22528, gpu_memory_utilization=0.7)
    nondef = ("{'model_tag': 'nvidia/Llama-3.3-70B-Instruct-FP4', 'model': 'nvidia/Llama-3.3-70B-Instruct-FP4', 'served_model_name': ['Llama-3.3-70B-Instruct-FP4'], "
              "'max_model_len': 32768, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.7, 'max_num_seqs': 6, "
              "'speculative_config': {'method': 'eagle3', 'model': 'yuhuili/EAGLE3-LLaMA3.3-Instruct-70B', 'num_speculative_tokens': 6}, "
              "'compilation_config': {'max_cudagraph_capture_size': 42}}")
    warn = ["WARNING @ [vllm.py:1804] Truncating max_cudagraph_capture_size to 40"]
    L = startup(t0, 1, 211, "0.28.0", nondef, "LlamaForCausalLM", 32768,
                ["[gpu_model_runner.py:3582] Model loading took 21.4410 GiB memory and 188.551 seconds",
                 "[backends.py:702] Using cudagraph_capture_sizes [1, 2, 4, 8, 16, 24, 32, 40]"], 55.00, 360448, 11.00, 22528, "loggers.py:176", warn)
    L += stats_lines(c, t0 + 200, c.start + 360, 1, "loggers.py:271") + access_lines(c, 1, "/v1/completions")
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80,
          "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 28672, "vocab_size": 128256,
          "max_position_embeddings": 131072, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
    argv = ["vllm", "serve", "nvidia/Llama-3.3-70B-Instruct-FP4", "--served-model-name", "Llama-3.3-70B-Instruct-FP4", "--tensor-parallel-size", "2",
            "--max-model-len", "32768", "--gpu-memory-utilization", "0.7", "--max-num-seqs", "6", "--speculative-config",
            '{"method":"eagle3","model":"yuhuili/EAGLE3-LLaMA3.3-Instruct-70B","num_speculative_tokens":6}', "--max-cudagraph-capture-size", "42"]
    write(c, C / c.cid / "bundle", server=server_json("0.28.0", c.model_name, c.model_root, 32768, int(t0 + 124)),
          engine_args={"argv": argv, "args": {"tensor-parallel-size": 2, "max-model-len": 32768, "gpu-memory-utilization": 0.7, "max-num-seqs": 6,
                       "speculative-config": argv[-3], "max-cudagraph-capture-size": 42}},
          model_config=mc, gpu=[], logs=L, endpoint="http://spark-a:8000",
          notes="Two DGX Spark (GB10), TP=2, EAGLE3 with 6 speculative tokens, max_num_seqs 6, explicit max_cudagraph_capture_size 42. Serving benchmark: aggregate throughput ~25 tok/s and TTFT ~26 s; single requests are fast. /metrics every 10 s for 6 min, server log of the head node.")


# ---------------------------------------------------------------- 4 Llama-70B OSL=1 healthy (V0)
def case_llama():
    rng = random.Random(13412)
    t0 = 1739786400.0  # 2025-02-17 10:00 UTC
    c = Case("o-llama70b-osl1-prefill-only-ttft-healthy", "0.7.2", True, "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct",
             131072, t0 + 240, 19, 10.0, {}, 2752512, 16, 256)
    reqs, i, t = [], 0, t0 + 200
    rate = 16800.0
    while t < c.start + 240:
        batch = [Req(i + k, round(t + rng.uniform(0, 0.02), 3), 3100 + rng.randint(0, 1), 0, 1, 1, "length") for k in range(32)]
        i += 32
        dur = sum(r.prompt for r in batch) / rate
        for r in batch:
            r.t_sched = t + 0.03; r.step_s = 0.05; r.t_first = t + 0.03 + dur; r.t_end = r.t_first
        reqs += batch
        t = t + 0.03 + dur + 0.04
    c.reqs = reqs
    c.labels_cc = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
                   "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "6553", "num_gpu_blocks": "172032",
                   "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"}
    L = [(t0, f"INFO {ts(t0)} __init__.py:190] Automatically detected platform cuda."),
         (t0 + 2, f"INFO {ts(t0+2)} api_server.py:840] vLLM API server version 0.7.2"),
         (t0 + 2, f"INFO {ts(t0+2)} api_server.py:841] args: Namespace(model='meta-llama/Llama-3.3-70B-Instruct', tensor_parallel_size=8, max_num_seqs=256, num_scheduler_steps=10, max_seq_len_to_capture=8192, enable_chunked_prefill=False, port=8002)"),
         (t0 + 60, f"INFO {ts(t0+60)} worker.py:267] Memory profiling takes 9.91 seconds"),
         (t0 + 60.1, f"INFO {ts(t0+60)} worker.py:267] the current vLLM instance can use total_gpu_memory (140.40GiB) x gpu_memory_utilization (0.90) = 126.36GiB"),
         (t0 + 60.2, f"INFO {ts(t0+60)} worker.py:267] model weights take 16.43GiB; non_torch_memory takes 2.95GiB; PyTorch activation peak memory takes 1.98GiB; the rest of the memory reserved for KV Cache is 105.00GiB."),
         (t0 + 60.3, f"INFO {ts(t0+60)} executor_base.py:110] # CUDA blocks: 172032, # CPU blocks: 6553"),
         (t0 + 60.4, f"INFO {ts(t0+60)} executor_base.py:115] Maximum concurrency for 131072 tokens per request: 21.00x"),
         (t0 + 90, f"INFO {ts(t0+90)} api_server.py:937] Starting vLLM API server on http://0.0.0.0:8002")]
    tt = t0 + 205
    while tt <= c.start + 180:
        a, b = tt - 5, tt
        pt = sum(r.prompt for r in reqs if a < r.t_first <= b)
        gt = sum(1 for r in reqs if a < r.t_first <= b)
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_first + 1e-3)
        wait = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        usage = 100.0 * sum(math.ceil(r.prompt / 16) for r in reqs if r.t_sched <= b < r.t_first) * 16 / c.pool_tokens
        L.append((b, f"INFO {ts(b)} metrics.py:455] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {usage:.1f}%, CPU KV cache usage: 0.0%."))
        tt += 5
    L += access_lines(c, 0, "/v1/completions", v0=True)
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80,
          "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256,
          "max_position_embeddings": 131072, "rope_theta": 500000.0, "torch_dtype": "bfloat16"}
    devs = [{"index": k, "name": "NVIDIA H200", "memory_total": H200, "memory_used": 137170000000,
             "processes": [{"pid": 4100 + k, "name": "python3" if k == 0 else "ray::RayWorkerWrapper", "used_memory": 136617000000}]} for k in range(8)]
    argv = ["--model", "meta-llama/Llama-3.3-70B-Instruct", "--tensor-parallel-size", "8", "--max-num-seqs", "256", "--num-scheduler-steps", "10",
            "--max-seq-len-to-capture", "8192", "--enable-chunked-prefill=False", "--port", "8002"]
    write(c, C / c.cid / "bundle", server=server_json("0.7.2", c.model_name, c.model_root, 131072, int(t0 + 90)),
          engine_args={"argv": argv, "args": {"tensor-parallel-size": 8, "max-num-seqs": 256, "num-scheduler-steps": 10,
                       "max-seq-len-to-capture": 8192, "enable-chunked-prefill": False}},
          model_config=mc, gpu=gpu_samples(c, devs), logs=L, endpoint="http://127.0.0.1:8002",
          notes="benchmark_serving.py against 8xH200 TP8: random dataset, input 3100, output 1, 960 prompts, max-concurrency 32. Mean TTFT is several seconds at OSL=1 and falls when OSL is raised, which looks wrong to us. /metrics every 10 s for 3 min during the OSL=1 run, server log.")


# ---------------------------------------------------------------- 5 Qwen3.6-35B NVFP4 MTP, KV full
def case_qwen36():
    rng = random.Random(43295)
    t0 = 1779181200.0  # 2026-05-19 09:00 UTC
    pool = 186_000
    c = Case("o-qwen36-35b-mtp-kv-full-admission", "0.21.0", False, "RedHatAI/Qwen3.6-35B-A3B-NVFP4", "RedHatAI/Qwen3.6-35B-A3B-NVFP4",
             262144, t0 + 5300 - 4000 + 60, 21, 15.0, {}, pool, 1072, 200, spec_k=2, spec_pos_rates=[0.908, 0.768])
    base = t0 + 1200
    reqs = []
    for i in range(100):
        r = Req(i, round(base + i * 0.05 + rng.uniform(0, 0.02), 3), 16384, 0, 4096, 4096, "length"); r.tps = 2.676
        reqs.append(r)
    simulate(c, reqs, lambda n: 0.025, lambda r, n: 16384 / 24000.0)
    c.start = base + 60
    c.labels_cc = cc_labels(block_size=1072, cache_dtype="fp8", num_gpu_blocks=732, gpu_memory_utilization=0.95,
                            mamba_cache_mode="align", mamba_block_size=1072, user_specified_block_size="False")
    nondef = ("{'model_tag': 'RedHatAI/Qwen3.6-35B-A3B-NVFP4', 'model': 'RedHatAI/Qwen3.6-35B-A3B-NVFP4', 'trust_remote_code': True, 'dtype': 'bfloat16', "
              "'max_model_len': 262144, 'enable_prefix_caching': True, 'gpu_memory_utilization': 0.95, 'kv_cache_dtype': 'fp8', 'download_dir': '/workspace/models', "
              "'max_num_batched_tokens': 4096, 'max_num_seqs': 200, 'reasoning_parser': 'qwen3', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', "
              "'speculative_config': {'method': 'qwen3_next_mtp', 'num_speculative_tokens': 2}, 'compilation_config': {'max_cudagraph_capture_size': 209}}")
    L = startup(t0, 5020, 5188, "0.21.0", nondef, "Qwen3_5MoeForConditionalGeneration", 262144,
                ["[gpu_model_runner.py:3582] Model loading took 22.9140 GiB memory and 48.337 seconds"], 62.11, pool, 0.75, 732, "loggers.py:176")
    L += stats_lines(c, base, c.start + 300, 5020, "loggers.py:271") + access_lines(c, 5020, "/v1/chat/completions")
    mc = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe", "text_config": {
        "model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16, "num_key_value_heads": 2,
        "head_dim": 256, "full_attention_interval": 4, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
        "mtp_num_hidden_layers": 1, "vocab_size": 248320, "max_position_embeddings": 262144, "torch_dtype": "bfloat16"},
        "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"}}
    dev = [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memory_total": RTXP, "memory_used": 97390000000,
            "processes": [{"pid": 5188, "name": "VLLM::EngineCore", "used_memory": 96830000000}]}]
    argv = ["vllm", "serve", "--config", "config.yaml"]
    args = {"model": "RedHatAI/Qwen3.6-35B-A3B-NVFP4", "dtype": "bfloat16", "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.95,
            "max-model-len": 262144, "max-num-batched-tokens": 4096, "max-num-seqs": 200, "max-cudagraph-capture-size": 209,
            "enable-prefix-caching": True, "speculative-config": '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'}
    write(c, C / c.cid / "bundle", server=server_json("0.21.0", c.model_name, c.model_root, 262144, int(t0 + 124)),
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://0.0.0.0:18000",
          notes="Qwen3.6-35B-A3B-NVFP4 with MTP (2 tokens). vllm bench serve: random, input 16384, output 4096, 100 prompts at request rate 20. Benchmark is slower with MTP than without, so MTP seems very slow. /metrics every 15 s for 5 min mid-benchmark, server log.")


if __name__ == "__main__":
    for f in (case_glm, case_qwen08, case_spark, case_llama, case_qwen36):
        f(); print("built", f.__name__)
