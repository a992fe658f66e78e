"""Builders of the zb-* bundles. Run from the worktree root:
    PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/zb/cases.py [case-id ...]
Deterministic (seeded RNGs, fixed start times). Scenario numbers come from each case.yaml (quoted / assumed).
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req  # noqa: E402

ROOT = gen.ROOT
V0_04 = "f-max-num-seqs-1-burst-ttft-a30"      # vLLM 0.4.1 exposition (nearest to 0.4.3)
V0_05 = "c-stream-stalls-40k-char-prompt"      # vLLM 0.5.4 exposition
V1_25 = "f-pd-decode-no-kv-connector-prefill-twice"  # vLLM 0.25.1 exposition
GiB = 1 << 30


def sharegpt_lengths(rng: random.Random, n: int, mean_in: float, mean_out: float, cap: int, out_cap: int = 700) -> list[tuple[int, int]]:
    out = []
    for _ in range(n):
        p = max(4, min(cap // 2, int(rng.lognormvariate(math.log(mean_in) - 0.4, 0.9))))
        g = max(1, min(out_cap, int(rng.lognormvariate(math.log(mean_out) - 0.25, 0.7))))
        out.append((p, g))
    # rescale to the quoted means
    sp = sum(p for p, _ in out) / n
    sg = sum(g for _, g in out) / n
    return [(max(4, round(p * mean_in / sp)), max(1, min(out_cap, round(g * mean_out / sg)))) for p, g in out]


def access(c: Case, path: str, v0: bool) -> list[tuple[float, str]]:
    return gen.access_lines(c, 2710, path, v0=v0)


def v0_startup(t: float, version: str, engine_line: str, weights_gb: float, gpu_blocks: int, cpu_blocks: int,
               argv_ns: str, ref_api: str, ref_engine: str, ref_runner: str, ref_exec: str) -> list[tuple[float, str]]:
    ts = gen.ts
    return [
        (t, f"INFO {ts(t)} {ref_api}] vLLM API server version {version}"),
        (t + 0.01, f"INFO {ts(t)} {ref_api.split(':')[0]}:{int(ref_api.split(':')[1]) + 1}] args: Namespace({argv_ns})"),
        (t + 2, f"INFO {ts(t + 2)} {ref_engine}] Initializing an LLM engine (v{version}) with config: {engine_line}"),
        (t + 40, f"INFO {ts(t + 40)} {ref_runner}] Loading model weights took {weights_gb:.4f} GB"),
        (t + 46, f"INFO {ts(t + 46)} {ref_exec}] # GPU blocks: {gpu_blocks}, # CPU blocks: {cpu_blocks}"),
        (t + 47, f"INFO {ts(t + 47)} model_runner.py:1000] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
        (t + 70, f"INFO {ts(t + 70)} model_runner.py:1225] Graph capturing finished in 23 secs."),
        (t + 71, "INFO:     Started server process [2710]"),
        (t + 71.01, "INFO:     Waiting for application startup."),
        (t + 71.02, "INFO:     Application startup complete."),
        (t + 71.03, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"),
    ]


# ---------------------------------------------------------------- zb-qwen2-72b-gptq-one-h100-rate12
def qwen2_72b() -> None:
    cid = "zb-qwen2-72b-gptq-one-h100-rate12"
    rng = random.Random(6781)
    start = 1721900400.0  # 2024-07-25 09:40 UTC
    bench0 = start + 40.0
    lens = sharegpt_lengths(rng, 1000, 217.4, 193.6, 8000)
    reqs, t = [], bench0
    for i, (p, g) in enumerate(lens):
        reqs.append(Req(rid=i, t_arr=round(t, 4), prompt=p, cached=0, gen=g, max_tokens=g, reason="length"))
        t += rng.expovariate(12.0)
    pool = 6349 * 16
    c = Case(cid=cid, version="0.5.3.post1", v0=True, model_name="Qwen/Qwen2-72B-Instruct-GPTQ-Int4",
             model_root="Qwen/Qwen2-72B-Instruct-GPTQ-Int4", max_model_len=8000, start=start, n_scrapes=31, interval=10.0,
             labels_cc={}, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0_05)
    c.labels_cc = gen.tmpl_cc(V0_05, block_size=16, cache_dtype="auto", enable_prefix_caching="False", gpu_memory_utilization=0.9,
                              num_cpu_blocks=819, num_gpu_blocks=6349, num_gpu_blocks_override="None", sliding_window="None", swap_space=4)
    gen.simulate(c, reqs, step_fn=lambda n: 0.045 + 0.00075 * n, prefill_fn=lambda r, n: 0.06 + r.prompt * 0.00012,
                 gen_reserve=False, gen_frac=0.6)
    out = ROOT / "cases" / cid / "bundle"
    end = start + 300
    eng = ("model='Qwen/Qwen2-72B-Instruct-GPTQ-Int4', speculative_config=None, tokenizer='Qwen/Qwen2-72B-Instruct-GPTQ-Int4', "
           "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
           "trust_remote_code=False, dtype=torch.float16, max_seq_len=8000, download_dir=None, load_format=LoadFormat.AUTO, "
           "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=marlin, enforce_eager=False, "
           "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
           "observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name=Qwen/Qwen2-72B-Instruct-GPTQ-Int4, "
           "use_v2_block_manager=False, enable_prefix_caching=False)")
    ns = ("host=None, port=8000, model='Qwen/Qwen2-72B-Instruct-GPTQ-Int4', dtype='auto', max_model_len=8000, quantization='marlin', "
          "tensor_parallel_size=1, pipeline_parallel_size=1, block_size=16, enable_prefix_caching=False, swap_space=4, "
          "gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, enforce_eager=False, enable_chunked_prefill=None, "
          "disable_log_requests=True")
    logs = v0_startup(start - 3600, "0.5.3.post1", eng, 38.9412, 6349, 819, ns, "api_server.py:219", "llm_engine.py:176",
                      "model_runner.py:680", "gpu_executor.py:102")
    logs += [(start - 3600 + 72, f"WARNING {gen.ts(start - 3600 + 72)} serving_embedding.py:171] embedding_mode is False. Embedding API will not work.")]
    logs += [(start - 3600 + 71.5, f"INFO {gen.ts(start - 3600 + 71.5)} gptq_marlin.py:87] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.")]
    logs += gen.v0_stats_lines(c, start - 10, end, "metrics.py:396")
    logs += access(c, "/v1/completions", True)
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 29568,
          "max_position_embeddings": 32768, "max_window_layers": 80, "model_type": "qwen2", "num_attention_heads": 64,
          "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.40.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
          "quantization_config": {"bits": 4, "damp_percent": 0.01, "desc_act": False, "group_size": 128, "is_marlin_format": False,
                                  "model_file_base_name": "model", "model_name_or_path": None, "quant_method": "gptq",
                                  "static_groups": False, "sym": True, "true_sequential": True}}
    total = 85520809984
    dev0 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": int(0.9 * total) + 540 * (1 << 20),
            "processes": [{"pid": 2710, "name": "python3", "used_memory": int(0.9 * total) + 16 * (1 << 20)}]}
    dev1 = {"index": 1, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": 4 * (1 << 20), "processes": []}
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2-72B-Instruct-GPTQ-Int4",
            "--disable-log-requests", "--dtype", "auto", "--quantization", "marlin", "--max-model-len", "8000"]
    gen.write(c, out, server=gen.server_json("0.5.3.post1", "Qwen/Qwen2-72B-Instruct-GPTQ-Int4", "Qwen/Qwen2-72B-Instruct-GPTQ-Int4", 8000, int(start)),
              engine_args={"argv": argv, "args": {"model": "Qwen/Qwen2-72B-Instruct-GPTQ-Int4", "disable-log-requests": True,
                                                  "dtype": "auto", "quantization": "marlin", "max-model-len": 8000}},
              model_config=mc, gpu=gen.gpu_samples(c, [dev0, dev1]), logs=logs,
              notes="vLLM OpenAI server during one benchmark_serving.py run (ShareGPT, 1000 prompts, --request-rate 12); 2x H100 host",
              endpoint="http://127.0.0.1:8000")


# ---------------------------------------------------------------- zb-phi3-a40-rate60-quant-no-gain
def phi3_a40() -> None:
    cid = "zb-phi3-a40-rate60-quant-no-gain"
    rng = random.Random(5316)
    start = 1717660800.0  # 2024-06-06 08:00 UTC
    bench0 = start + 30.0
    reqs, t = [], bench0
    for i in range(1000):
        reqs.append(Req(rid=i, t_arr=round(t, 4), prompt=686, cached=0, gen=56, max_tokens=56, reason="length"))
        t += rng.expovariate(60.0)
    c = Case(cid=cid, version="0.4.3", v0=True, model_name="/t9k/mnt/workspace/llm_models/phi3",
             model_root="/t9k/mnt/workspace/llm_models/phi3", max_model_len=4096, start=start, n_scrapes=31, interval=10.0,
             labels_cc={}, pool_tokens=4650 * 16, block_size=16, max_num_seqs=256, tmpl=V0_04)
    c.labels_cc = gen.tmpl_cc(V0_04, block_size=16, cache_dtype="auto", enable_prefix_caching="False", gpu_memory_utilization=0.9,
                              num_cpu_blocks=682, num_gpu_blocks=4650, num_gpu_blocks_override="None", sliding_window=2047, swap_space=4)
    gen.simulate(c, reqs, step_fn=lambda n: 0.09 + 0.001 * n, prefill_fn=lambda r, n: 1.05 + rng.random() * 0.3,
                 gen_reserve=True)
    out = ROOT / "cases" / cid / "bundle"
    end = start + 300
    mp = "/t9k/mnt/workspace/llm_models/phi3"
    eng = (f"model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
           "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=4096, "
           "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
           "enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
           f"decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={mp})")
    ns = (f"host=None, port=8000, model='{mp}', trust_remote_code=True, dtype='bfloat16', max_model_len=4096, block_size=16, "
          "enable_prefix_caching=False, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, "
          "enforce_eager=False, enable_chunked_prefill=False")
    logs = v0_startup(start - 1800, "0.4.3", eng, 7.1184, 4650, 682, ns, "api_server.py:177", "llm_engine.py:161",
                      "model_runner.py:167", "gpu_executor.py:83")
    logs += gen.v0_stats_lines(c, start - 10, end, "metrics.py:341")
    logs += access(c, "/v1/completions", True)
    mc = {"_name_or_path": "Phi-3-mini-4k-instruct", "architectures": ["Phi3ForCausalLM"], "attention_bias": False,
          "attention_dropout": 0.0, "auto_map": {"AutoConfig": "configuration_phi3.Phi3Config", "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM"},
          "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072,
          "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "phi3",
          "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
          "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000.0,
          "sliding_window": 2047, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.40.2",
          "use_cache": True, "vocab_size": 32064}
    total = 48305799168
    dev0 = {"index": 0, "name": "NVIDIA A40", "memory_total": total, "memory_used": int(0.9 * total) + 420 * (1 << 20),
            "processes": [{"pid": 2710, "name": "python", "used_memory": int(0.9 * total) + 12 * (1 << 20)}]}
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", mp, "--dtype", "bfloat16", "--trust-remote-code",
            "--max-model-len", "4096"]
    gen.write(c, out, server=gen.server_json("0.4.3", mp, mp, 4096, int(start)),
              engine_args={"argv": argv, "args": {"model": mp, "dtype": "bfloat16", "trust-remote-code": True, "max-model-len": 4096}},
              model_config=mc, gpu=gen.gpu_samples(c, [dev0]), logs=logs,
              notes="vLLM OpenAI server (bf16 phi3, one A40) during a serving benchmark: summarize dataset, 1000 prompts, --request-rate 60",
              endpoint="http://127.0.0.1:8000")


# ---------------------------------------------------------------- zb-llama31-70b-tp8-burst-1000-ttft31s
def llama70b_burst() -> None:
    cid = "zb-llama31-70b-tp8-burst-1000-ttft31s"
    rng = random.Random(7567)
    start = 1724310000.0  # 2024-08-22 07:00 UTC
    bench0 = start + 40.0
    lens = sharegpt_lengths(rng, 1000, 215.2, 178.8, 4096)
    reqs = [Req(rid=i, t_arr=round(bench0 + i * 0.0004, 4), prompt=p, cached=0, gen=g, max_tokens=g, reason="length")
            for i, (p, g) in enumerate(lens)]
    blocks = 85120
    c = Case(cid=cid, version="0.5.4", v0=True, model_name="meta-llama/Meta-Llama-3.1-70B-Instruct",
             model_root="meta-llama/Meta-Llama-3.1-70B-Instruct", max_model_len=131072, start=start, n_scrapes=31, interval=10.0,
             labels_cc={}, pool_tokens=blocks * 16, block_size=16, max_num_seqs=256, tmpl=V0_05)
    c.labels_cc = gen.tmpl_cc(V0_05, block_size=16, cache_dtype="auto", enable_prefix_caching="False", gpu_memory_utilization=0.9,
                              num_cpu_blocks=13107, num_gpu_blocks=blocks, num_gpu_blocks_override="None", sliding_window="None", swap_space=4)
    gen.simulate(c, reqs, step_fn=lambda n: 0.03 + 0.00047 * n, prefill_fn=lambda r, n: 0.15 + r.prompt * 0.0004, gen_reserve=True)
    out = ROOT / "cases" / cid / "bundle"
    end = start + 300
    m = "meta-llama/Meta-Llama-3.1-70B-Instruct"
    eng = (f"model='{m}', speculative_config=None, tokenizer='{m}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
           "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, "
           "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
           "quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, "
           f"collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={m}, use_v2_block_manager=False, "
           "enable_prefix_caching=False)")
    ns = (f"host=None, port=8000, model='{m}', tensor_parallel_size=8, max_model_len=None, block_size=16, enable_prefix_caching=False, "
          "swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, enforce_eager=False, "
          "enable_chunked_prefill=None, disable_log_requests=True")
    logs = v0_startup(start - 2400, "0.5.4", eng, 16.4249, blocks, 13107, ns, "api_server.py:339", "llm_engine.py:174",
                      "model_runner.py:732", "distributed_gpu_executor.py:56")
    logs += [(start - 2400 + 1, f"WARNING {gen.ts(start - 2400 + 1)} arg_utils.py:766] Chunked prefill is enabled by default for models with max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter any issues, please disable chunked prefill by setting --enable-chunked-prefill=False."),
             (start - 2400 + 1.01, f"INFO {gen.ts(start - 2400 + 1)} config.py:820] Chunked prefill is enabled with max_num_batched_tokens=512.")]
    logs += gen.v0_stats_lines(c, start - 10, end, "metrics.py:406")
    logs += access(c, "/v1/completions", True)
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
          "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
          "intermediate_size": 28672, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
          "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
                           "rope_type": "llama3"}, "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
          "transformers_version": "4.42.3", "use_cache": True, "vocab_size": 128256}
    total = 85899345920
    devs = []
    for i in range(8):
        pid = 2710 if i == 0 else 2900 + i
        devs.append({"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": int(0.9 * total) + 610 * (1 << 20),
                     "processes": [{"pid": pid, "name": "python3" if i == 0 else "ray::RayWorkerWrapper" if False else "python3",
                                    "used_memory": int(0.9 * total) + 80 * (1 << 20)}]})
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", m, "--tensor-parallel-size", "8", "--disable-log-requests"]
    gen.write(c, out, server=gen.server_json("0.5.4", m, m, 131072, int(start)),
              engine_args={"argv": argv, "args": {"model": m, "tensor-parallel-size": 8, "disable-log-requests": True}},
              model_config=mc, gpu=gen.gpu_samples(c, devs), logs=logs,
              notes="vLLM OpenAI server (one TP=8 instance) during benchmarks/benchmark_serving.py: ShareGPT, 1000 prompts, default request rate (inf)",
              endpoint="http://127.0.0.1:8000")


# ---------------------------------------------------------------- zb-dynamic-sd-threshold-collapse-qwen35-122b
def dynamic_sd() -> None:
    cid = "zb-dynamic-sd-threshold-collapse-qwen35-122b"
    rng = random.Random(49548)
    start = 1784800800.0  # 2026-07-23 10:00 UTC
    reqs, rid = [], 0
    t_round = start + 20.0
    for rnd in range(5):
        rows = []
        for k in range(8):
            p = rng.randint(130, 170)
            r = Req(rid=rid, t_arr=round(t_round + k * 0.003, 4), prompt=p, cached=0, gen=180, max_tokens=180, reason="length")
            r.t_sched = r.t_arr
            r.t_first = r.t_sched + 0.35 + rng.random() * 0.4
            # 8-way batch: spec disabled (K=0) and decode stalls in bursts -> 0.20-0.32 s per token per stream
            r.step_s = 0.20 + rng.random() * 0.12
            r.t_end = r.t_first + r.steps() * r.step_s
            rows.append(r); rid += 1
        rows.sort(key=lambda r: r.t_end)
        # the last stragglers run with batch <= 4, where k=2 drafting resumes for a short tail
        for r in rows[4:]:
            r.spec_frac = 0.12
        for r in rows[:4]:
            r.spec_frac = 0.0
        reqs += rows
        t_round = max(r.t_end for r in rows) + 4.0 + rng.random() * 3
    lab = gen.tmpl_cc(V1_25, block_size=1568, enable_prefix_caching="False", gpu_memory_utilization=0.9, num_gpu_blocks=1862,
                      kv_cache_size_tokens=1862 * 1568, kv_cache_max_concurrency="44.55", mamba_block_size=1568, mamba_cache_mode="none",
                      mamba_ssm_cache_dtype="float32", cache_dtype="auto", kv_cache_dtype_skip_layers="[]")
    c = Case(cid=cid, version="0.25.1", v0=False, model_name="Qwen/Qwen3.5-122B-A10B-FP8", model_root="Qwen/Qwen3.5-122B-A10B-FP8",
             max_model_len=65536, start=start, n_scrapes=31, interval=10.0, labels_cc=lab, pool_tokens=1862 * 1568, block_size=1568,
             max_num_seqs=256, spec_k=2, spec_pos_rates=[0.76, 0.51], reqs=reqs, tmpl=V1_25)
    out = ROOT / "cases" / cid / "bundle"
    end = start + 300
    spec = '{"method":"qwen3_next_mtp","num_speculative_tokens":2,"num_speculative_tokens_per_batch_size":[[1,4,2],[5,512,0]]}'
    m = "Qwen/Qwen3.5-122B-A10B-FP8"
    ts = gen.ts
    t0 = start - 1500
    pre = "(APIServer pid=1) "
    ecp = "(EngineCore pid=270) "
    logs = [
        (t0, f"INFO {ts(t0)} [__init__.py:216] Automatically detected platform cuda."),
        (t0 + 1, f"{pre}INFO {ts(t0 + 1)} [api_server.py:1947] vLLM API server version 0.25.1"),
        (t0 + 1.01, f"{pre}INFO {ts(t0 + 1)} [utils.py:299] non-default args: {{'model_tag': '{m}', 'model': '{m}', 'max_model_len': 65536, 'tensor_parallel_size': 2, 'speculative_config': {{'method': 'qwen3_next_mtp', 'num_speculative_tokens': 2, 'num_speculative_tokens_per_batch_size': [[1, 4, 2], [5, 512, 0]]}}, 'enable_prefix_caching': False}}"),
        (t0 + 8, f"{pre}INFO {ts(t0 + 8)} [model.py:552] Resolved architecture: Qwen3_5MoeForConditionalGeneration"),
        (t0 + 8.01, f"{pre}INFO {ts(t0 + 8)} [model.py:1677] Using max model len 65536"),
        (t0 + 9, f"{pre}WARNING {ts(t0 + 9)} [speculative.py:870] Dynamic speculative decoding (num_speculative_tokens_per_batch_size) is not compatible with FULL cudagraphs for the drafter; cudagraph_mode is downgraded from FULL_AND_PIECEWISE to PIECEWISE."),
        (t0 + 9.01, f"{pre}INFO {ts(t0 + 9)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        (t0 + 60, f"{ecp}INFO {ts(t0 + 60)} [gpu_model_runner.py:4012] Model loading took 59.87 GiB memory and 48.2 seconds"),
        (t0 + 95, f"{ecp}INFO {ts(t0 + 95)} [gpu_worker.py:390] Available KV cache memory: 21.4 GiB"),
        (t0 + 95.01, f"{ecp}INFO {ts(t0 + 95)} [kv_cache_utils.py:1290] GPU KV cache size: 2,919,616 tokens"),
        (t0 + 95.02, f"{ecp}INFO {ts(t0 + 95)} [kv_cache_utils.py:1295] Maximum concurrency for 65,536 tokens per request: 44.55x"),
        (t0 + 140, f"{ecp}INFO {ts(t0 + 140)} [gpu_model_runner.py:4921] Graph capturing finished in 41 secs, took 1.12 GiB"),
        (t0 + 142, f"{pre}INFO {ts(t0 + 142)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 1862"),
        (t0 + 143, f"{pre}INFO:     Started server process [1]"),
        (t0 + 143.01, f"{pre}INFO:     Application startup complete."),
    ]
    logs += gen.stats_lines(c, start - 10, end, 1, "loggers.py:257", spec_ref="metrics.py:101")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(48)]
    mc = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
          "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 3072, "num_hidden_layers": 48, "num_attention_heads": 32,
                          "num_key_value_heads": 2, "head_dim": 256, "full_attention_interval": 4, "layer_types": layer_types,
                          "linear_num_key_heads": 16, "linear_num_value_heads": 64, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                          "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 1024,
                          "shared_expert_intermediate_size": 1024, "mtp_num_hidden_layers": 1, "max_position_embeddings": 262144,
                          "rope_theta": 10000000, "vocab_size": 248320, "torch_dtype": "bfloat16"},
          "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
          "torch_dtype": "bfloat16"}
    total = 102641958912
    devs = [{"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memory_total": total,
             "memory_used": int(0.9 * total) + 700 * (1 << 20),
             "processes": [{"pid": 270 + i * 40, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(0.9 * total) + 120 * (1 << 20)}]}
            for i in range(2)]
    argv = ["vllm", "serve", m, "--tensor-parallel-size", "2", "--max-model-len", "65536", "--no-enable-prefix-caching",
            "--speculative-config", spec]
    gen.write(c, out, server=gen.server_json("0.25.1", m, m, 65536, int(start)),
              engine_args={"argv": argv, "args": {"model": m, "tensor-parallel-size": 2, "max-model-len": 65536,
                                                  "enable-prefix-caching": False, "speculative-config": spec}},
              model_config=mc, gpu=gen.gpu_samples(c, devs), logs=logs,
              notes="Rounds of 8 concurrent chat requests (180 output tokens each) under the dynamic speculative-decoding schedule",
              endpoint="http://127.0.0.1:8000")


BUILDERS = {
    "zb-qwen2-72b-gptq-one-h100-rate12": qwen2_72b,
    "zb-phi3-a40-rate60-quant-no-gain": phi3_a40,
    "zb-llama31-70b-tp8-burst-1000-ttft31s": llama70b_burst,
    "zb-dynamic-sd-threshold-collapse-qwen35-122b": dynamic_sd,
}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[cid]()
        print("built", cid)
