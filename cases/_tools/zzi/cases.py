"""Build the zzi-* bundles (round 14): python3 cases/_tools/zzi/cases.py (from the worktree root).

Uses gen.simulate (copied from writer zzf) so counters, histograms, gauges and log lines come from one request list.
Templates (family names, HELP, buckets, cache_config labels) are existing case bundles of the nearest release:
  0.10.0 V1: zv-l40s-120k-prefill-preempt-loop; V0 (0.7.3 layout, kept through 0.9.x): c-v0-recompute-warnings-limo32b;
  0.15.x V1: v-glm47-flash-spark-memory-climb-plateau; 0.19/0.20 V1: o-qwen35-08b-mtp-slower-confounded.
V0 spec-decode families (vllm/engine/metrics.py): spec_decode_draft_acceptance_rate, spec_decode_efficiency,
spec_decode_num_{accepted,draft,emitted}_tokens_total.
"""
from __future__ import annotations

import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402

CASES = gen.ROOT / "cases"
GiB = 1024 ** 3


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def ts(t):
    return gen.ts(t)


def mkreqs(rnd, t0, dur, n, plo, phi, glo, ghi, mt):
    out = []
    for i in range(n):
        out.append(gen.Req(rid=i, t_arr=t0 + rnd.uniform(0, dur), prompt=rnd.randint(plo, phi), cached=0,
                           gen=rnd.randint(glo, ghi), max_tokens=mt))
    return out


def gpus(name, n, total, used, pid0, pname="VLLM::Worker"):
    return [{"index": i, "name": name, "memory_total": total, "memory_used": used,
             "processes": [{"pid": pid0 + i, "name": pname, "used_memory": used - 600 * 1024 ** 2}]} for i in range(n)]


# ---------------------------------------------------------------- 1. GLM-4.5-FP8 cpu offload
def glm():
    cid = "zzi-glm45-fp8-tp8-cpu-offload-6tok"
    rnd = random.Random(2269)
    t0 = utc(2025, 8, 12, 6, 20, 0)
    pool = 52001 * 16  # 36.5 GiB / 47,104 B per token per rank
    labels = gen.tmpl_cc("zv-l40s-120k-prefill-preempt-loop", cpu_offload_gb="16", num_gpu_blocks=str(52001),
                         enable_prefix_caching="True", gpu_memory_utilization="0.9", block_size="16")
    c = gen.Case(cid=cid, version="0.10.0", v0=False, model_name="glm-4.5-fp8", model_root="/GLM-4.5-FP8",
                 max_model_len=131072, start=t0, n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=pool,
                 block_size=16, max_num_seqs=256, tmpl="zv-l40s-120k-prefill-preempt-loop")
    # 1-3 concurrent chats: sequential sessions
    reqs, i = [], 0
    for lane in range(3):
        t = t0 - 40 + lane * 35
        while t < t0 + 560:
            r = gen.Req(rid=i, t_arr=t, prompt=rnd.randint(1000, 6000), cached=0, gen=rnd.randint(300, 1100), max_tokens=8192)
            reqs.append(r); i += 1
            t += r.gen * 0.157 + rnd.uniform(5, 40)
    gen.simulate(c, reqs, step_fn=lambda n: 0.152 + 0.003 * n, prefill_fn=lambda r, n: 0.35 + r.prompt / 9000)
    api, eng = 3121, 3388
    L = [(t0 - 900, f"(APIServer pid={api}) INFO {ts(t0 - 900)} [api_server.py:1755] vLLM API server version 0.10.0"),
         (t0 - 899, f"(APIServer pid={api}) INFO {ts(t0 - 899)} [cli_args.py:261] non-default args: {{'model_tag': '/GLM-4.5-FP8', 'enable_auto_tool_choice': True, 'tool_call_parser': 'glm45', 'model': '/GLM-4.5-FP8', 'served_model_name': ['glm-4.5-fp8'], 'reasoning_parser': 'glm45', 'tensor_parallel_size': 8, 'cpu_offload_gb': 16.0}}"),
         (t0 - 880, f"(APIServer pid={api}) INFO {ts(t0 - 880)} [config.py:1604] Using max model len 131072"),
         (t0 - 700, f"(VllmWorker rank=0 pid={eng + 1}) INFO {ts(t0 - 700)} [gpu_model_runner.py:1892] Model loading took 29.2114 GiB and 412.57 seconds"),
         (t0 - 640, f"(VllmWorker rank=0 pid={eng + 1}) INFO {ts(t0 - 640)} [gpu_worker.py:255] Available KV cache memory: 36.50 GiB"),
         (t0 - 639, f"(EngineCore_0 pid={eng}) INFO {ts(t0 - 639)} [kv_cache_utils.py:833] GPU KV cache size: {pool:,} tokens"),
         (t0 - 639, f"(EngineCore_0 pid={eng}) INFO {ts(t0 - 639)} [kv_cache_utils.py:837] Maximum concurrency for 131,072 tokens per request: {pool / 131072:.2f}x"),
         (t0 - 600, f"(VllmWorker rank=0 pid={eng + 1}) INFO {ts(t0 - 600)} [gpu_model_runner.py:2485] Graph capturing finished in 31 secs, took 1.12 GiB"),
         (t0 - 598, f"(APIServer pid={api}) INFO {ts(t0 - 598)} [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, t0 - 60, t0 + 600, api, "loggers.py:123")
    L += gen.access_lines(c, api, "/v1/chat/completions")
    used = int(72.9 * GiB)
    ea = {"argv": ["vllm", "serve", "/GLM-4.5-FP8", "--tensor-parallel-size", "8", "--tool-call-parser", "glm45", "--reasoning-parser", "glm45",
                   "--enable-auto-tool-choice", "--cpu-offload-gb", "16", "--served-model-name", "glm-4.5-fp8"],
          "args": {"model": "/GLM-4.5-FP8", "tensor-parallel-size": 8, "tool-call-parser": "glm45", "reasoning-parser": "glm45",
                   "enable-auto-tool-choice": True, "cpu-offload-gb": 16, "served-model-name": "glm-4.5-fp8"}}
    mc = {"architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "first_k_dense_replace": 3, "head_dim": 128,
          "hidden_act": "silu", "hidden_size": 5120, "intermediate_size": 12288, "max_position_embeddings": 131072,
          "model_type": "glm4_moe", "moe_intermediate_size": 1536, "n_group": 1, "n_routed_experts": 160, "n_shared_experts": 1,
          "norm_topk_prob": True, "num_attention_heads": 96, "num_experts_per_tok": 8, "num_hidden_layers": 92,
          "num_key_value_heads": 8, "num_nextn_predict_layers": 1, "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05,
          "rope_theta": 1000000, "routed_scaling_factor": 2.5, "tie_word_embeddings": False, "topk_group": 1,
          "torch_dtype": "bfloat16", "use_qk_norm": True, "vocab_size": 151552,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    gen.write(c, CASES / cid / "bundle", server=gen.server_json("0.10.0", "glm-4.5-fp8", "/GLM-4.5-FP8", 131072, int(t0 - 598)),
              engine_args=ea, model_config=mc, gpu=gen.gpu_samples(c, gpus("NVIDIA H100 80GB HBM3", 8, 85520809984, used, eng + 1)),
              logs=L, notes="GLM-4.5-FP8 TP8 on 8x H100 with --cpu-offload-gb 16; chat/tool traffic, 1-3 concurrent streams.",
              endpoint="http://glm45-fp8:8000")


# ---------------------------------------------------------------- 2. Qwen3-32B-FP8 + Qwen3-4B draft, V0 fallback
def qwen_draft():
    cid = "zzi-qwen3-32b-fp8-draft4b-k3-l20-slower"
    rnd = random.Random(21278)
    t0 = utc(2025, 7, 21, 3, 10, 0)
    K, A = 3, 0.35
    pos = [A, A * A, A ** 3]
    tps = 1 + sum(pos)  # ~1.52 tokens per step
    step = 0.140
    blocks = 6320
    labels = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
              "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "2048",
              "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    c = gen.Case(cid=cid, version="0.9.2", v0=True, model_name="qwen3", model_root="/path/to/Qwen3-32B-FP8/",
                 max_model_len=10240, start=t0, n_scrapes=61, interval=10.0, labels_cc=labels, pool_tokens=blocks * 16,
                 block_size=16, max_num_seqs=256, tmpl=gen.V0_T)
    reqs, i = [], 0
    for lane in range(2):
        t = t0 - 30 + lane * 70
        while t < t0 + 560:
            r = gen.Req(rid=i, t_arr=t, prompt=rnd.randint(300, 2000), cached=0, gen=rnd.randint(400, 1500), max_tokens=8192, tps=tps)
            reqs.append(r); i += 1
            t += r.gen / tps * step + rnd.uniform(10, 45)
    gen.simulate(c, reqs, step_fn=lambda n: step + 0.004 * (n - 1), prefill_fn=lambda r, n: 0.12 + r.prompt / 6000)
    # V0 spec metrics appended to every scrape
    orig = gen.scrape

    def scrape(cc, t, created):
        txt = orig(cc, t, created)
        steps = sum(r.steps_by(t) for r in cc.reqs)
        # V0 counts every accepted draft token (per position, not only the accepted prefix); emitted = prefix + bonus
        acc = round(steps * K * A); drafted = steps * K; emitted = round(steps * tps)
        ar = acc / drafted if drafted else 0.0
        eff = emitted / (steps * (K + 1)) if steps else 0.0
        extra = [
            "# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.",
            "# TYPE vllm:spec_decode_draft_acceptance_rate gauge",
            f'vllm:spec_decode_draft_acceptance_rate{{model_name="qwen3"}} {ar!r}',
            "# HELP vllm:spec_decode_efficiency Speculative decoding system efficiency.",
            "# TYPE vllm:spec_decode_efficiency gauge",
            f'vllm:spec_decode_efficiency{{model_name="qwen3"}} {eff!r}',
            "# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.",
            "# TYPE vllm:spec_decode_num_accepted_tokens_total counter",
            f'vllm:spec_decode_num_accepted_tokens_total{{model_name="qwen3"}} {float(acc)!r}',
            "# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.",
            "# TYPE vllm:spec_decode_num_draft_tokens_total counter",
            f'vllm:spec_decode_num_draft_tokens_total{{model_name="qwen3"}} {float(drafted)!r}',
            "# HELP vllm:spec_decode_num_emitted_tokens_total Number of emitted tokens.",
            "# TYPE vllm:spec_decode_num_emitted_tokens_total counter",
            f'vllm:spec_decode_num_emitted_tokens_total{{model_name="qwen3"}} {float(emitted)!r}',
        ]
        return txt + "\n".join(extra) + "\n"

    gen.scrape = scrape
    L = [(t0 - 700, f"INFO {ts(t0 - 700)} [api_server.py:1395] vLLM API server version 0.9.2"),
         (t0 - 699, f"INFO {ts(t0 - 699)} [cli_args.py:325] non-default args: {{'host': '0.0.0.0', 'port': 9997, 'model': '/path/to/Qwen3-32B-FP8/', 'seed': 42, 'max_model_len': 10240, 'served_model_name': ['qwen3'], 'tensor_parallel_size': 2, 'speculative_config': {{'model': '/path/to/Qwen3-4B-FP8/', 'max_model_len': 10240, 'num_speculative_tokens': 3}}}}"),
         (t0 - 690, f"WARNING {ts(t0 - 690)} [arg_utils.py:1642] Speculative Decoding with draft models is not supported by the V1 Engine. Falling back to V0. "),
         (t0 - 689, f"INFO {ts(t0 - 689)} [llm_engine.py:230] Initializing a V0 LLM engine (v0.9.2) with config: model='/path/to/Qwen3-32B-FP8/', speculative_config=SpeculativeConfig(method='draft_model', model='/path/to/Qwen3-4B-FP8/', num_spec_tokens=3), tokenizer='/path/to/Qwen3-32B-FP8/', dtype=torch.bfloat16, max_seq_len=10240, tensor_parallel_size=2, pipeline_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, seed=42, served_model_name=qwen3, enable_prefix_caching=None, chunked_prefill_enabled=False, use_async_output_proc=False"),
         (t0 - 620, f"INFO {ts(t0 - 620)} [model_runner.py:1203] Model loading took 16.5213 GiB and 38.412461 seconds"),
         (t0 - 600, f"INFO {ts(t0 - 600)} [executor_base.py:113] # cuda blocks: {blocks}, # CPU blocks: 2048"),
         (t0 - 600, f"INFO {ts(t0 - 600)} [executor_base.py:118] Maximum concurrency for 10240 tokens per request: {blocks * 16 / 10240:.2f}x"),
         (t0 - 560, f"INFO {ts(t0 - 560)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:9997")]
    every = 5.0
    t = t0 - 60 + every
    while t <= t0 + 600:
        a, b = t - every, t
        pt = sum(r.prompt for r in c.reqs if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
        bl = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in c.reqs if r.t_sched <= b < r.t_end)
        if run or pt or gt:
            L.append((b, f"INFO {ts(b)} [metrics.py:417] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {100 * bl / blocks:.1f}%, CPU KV cache usage: 0.0%."))
            steps = sum(r.steps_by(b) for r in c.reqs)
            acc = round(steps * K * A); em = round(steps * tps)
            L.append((b + 0.001, f"INFO {ts(b)} [metrics.py:97] Speculative metrics: Draft acceptance rate: {acc / (steps * K) if steps else 0:.3f}, "
                                 f"System efficiency: {em / (steps * (K + 1)) if steps else 0:.3f}, Number of speculative tokens: {K}, "
                                 f"Number of accepted tokens: {acc}, Number of draft tokens: {steps * K}, Number of emitted tokens: {em}."))
        t += every
    L += [(r.t_arr + 0.002, f'INFO:     10.8.0.{21 + r.rid % 2}:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in c.reqs]
    ea = {"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "9997", "--model", "/path/to/Qwen3-32B-FP8/",
                   "--served-model-name", "qwen3", "--seed", "42", "--max-model-len", "10240", "-tp", "2", "--speculative_config",
                   '{"model": "/path/to/Qwen3-4B-FP8/", "max_model_len": 10240, "num_speculative_tokens": 3}'],
          "args": {"model": "/path/to/Qwen3-32B-FP8/", "served-model-name": "qwen3", "seed": 42, "max-model-len": 10240, "tensor-parallel-size": 2,
                   "speculative-config": {"model": "/path/to/Qwen3-4B-FP8/", "max_model_len": 10240, "num_speculative_tokens": 3}}}
    mc = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
          "intermediate_size": 25600, "max_position_embeddings": 40960, "model_type": "qwen3", "num_attention_heads": 64,
          "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "vocab_size": 151936,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    gen.write(c, CASES / cid / "bundle", server=gen.server_json("0.9.2", "qwen3", "/path/to/Qwen3-32B-FP8/", 10240, int(t0 - 560)),
              engine_args=ea, model_config=mc, gpu=gen.gpu_samples(c, gpus("NVIDIA L20", 2, 51527024640, int(43.6 * GiB), 4410, "python")),
              logs=L, notes="Qwen3-32B-FP8 TP2 on 2x L20 with a Qwen3-4B-FP8 draft model (3 speculative tokens); V0 fallback.",
              endpoint="http://qwen3-32b:9997")
    gen.scrape = orig


# ---------------------------------------------------------------- 3/4. DeepSeek MTP
def mtp_case(cid, version, tmpl, model, served, t0, n_conc, n_prompts, plen, glen, step, rates, interval, n_scrapes, pool_blocks, block,
             gpu_name, gpu_total, gpu_used, ngpu, argv, args, logsrc, notes, mc, extra_cc):
    rnd = random.Random(len(cid))
    tps = 1 + sum(rates)
    labels = gen.tmpl_cc(tmpl, num_gpu_blocks=str(pool_blocks), block_size=str(block), gpu_memory_utilization="0.9",
                         cpu_offload_gb="0", enable_prefix_caching="True", **extra_cc)
    c = gen.Case(cid=cid, version=version, v0=False, model_name=served, model_root=model, max_model_len=163840, start=t0,
                 n_scrapes=n_scrapes, interval=interval, labels_cc=labels, pool_tokens=pool_blocks * block, block_size=block,
                 max_num_seqs=n_conc, spec_k=len(rates), spec_pos_rates=rates, tmpl=tmpl)
    # closed loop: n_conc clients, each sends the next request when the previous ends
    reqs = [gen.Req(rid=i, t_arr=t0 + 3 + 0.05 * i, prompt=plen, cached=0, gen=glen, max_tokens=glen, reason="length", tps=tps) for i in range(n_prompts)]
    # approximate closed loop: request i arrives when slot (i % n_conc) frees
    lane_t = [t0 + 3 + 0.05 * k for k in range(n_conc)]
    pre = 0.09 + plen / 40000
    for i, r in enumerate(reqs):
        k = i % n_conc
        r.t_arr = lane_t[k]
        lane_t[k] = r.t_arr + pre + math.ceil((glen - 1) / tps) * step + 0.01
    gen.simulate(c, reqs, step_fn=lambda n: step, prefill_fn=lambda r, n: pre)
    api, eng = 1, 213
    L = list(logsrc(t0, api, eng, pool_blocks * block))
    L += gen.stats_lines(c, t0 - 10, t0 + (n_scrapes - 1) * interval, api, "loggers.py:248" if version.startswith("0.20") else "loggers.py:257")
    L += gen.access_lines(c, api, "/v1/completions")
    gen.write(c, CASES / cid / "bundle", server=gen.server_json(version, served, model, 163840, int(t0 - 120)),
              engine_args={"argv": argv, "args": args}, model_config=mc,
              gpu=gen.gpu_samples(c, gpus(gpu_name, ngpu, gpu_total, gpu_used, eng + 10)), logs=L, notes=notes,
              endpoint=f"http://127.0.0.1:8000")


def dsv32():
    t0 = utc(2026, 2, 1, 9, 0, 0)
    blocks = 26160  # 64-token blocks -> 1,674,240 tokens at 70,272 B/token -> 109.6 GiB per rank
    def logs(t0, api, eng, pool):
        return [(t0 - 900, f"(APIServer pid={api}) INFO {ts(t0 - 900)} [utils.py:325] vLLM API server version 0.15.0"),
                (t0 - 899, f"(APIServer pid={api}) INFO {ts(t0 - 899)} [utils.py:261] non-default args: {{'model_tag': 'deepseek-ai/DeepSeek-V3.2', 'enable_auto_tool_choice': True, 'tool_call_parser': 'deepseek_v32', 'model': 'deepseek-ai/DeepSeek-V3.2', 'tokenizer_mode': 'deepseek_v32', 'reasoning_parser': 'deepseek_v3', 'tensor_parallel_size': 8, 'speculative_config': {{'num_speculative_tokens': 1, 'method': 'deepseek_mtp'}}}}"),
                (t0 - 600, f"(Worker_TP0 pid={eng + 10}) INFO {ts(t0 - 600)} [gpu_model_runner.py:3893] Model loading took 83.47 GiB memory and 212.64 seconds"),
                (t0 - 520, f"(Worker_TP0 pid={eng + 10}) INFO {ts(t0 - 520)} [gpu_worker.py:355] Available KV cache memory: 25.14 GiB"),
                (t0 - 519, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 - 519)} [kv_cache_utils.py:1307] GPU KV cache size: {pool:,} tokens"),
                (t0 - 519, f"(EngineCore_DP0 pid={eng}) INFO {ts(t0 - 519)} [kv_cache_utils.py:1312] Maximum concurrency for 163,840 tokens per request: {pool / 163840:.2f}x"),
                (t0 - 480, f"(APIServer pid={api}) INFO {ts(t0 - 480)} [api_server.py:1016] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    mc = {"architectures": ["DeepseekV32ForCausalLM"], "first_k_dense_replace": 3, "hidden_size": 7168, "index_head_dim": 128,
          "index_n_heads": 64, "index_topk": 2048, "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
          "model_type": "deepseek_v32", "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
          "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
          "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
          "torch_dtype": "bfloat16", "vocab_size": 129280,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "scale_fmt": "ue8m0", "weight_block_size": [128, 128]}}
    argv = ["vllm", "serve", "deepseek-ai/DeepSeek-V3.2", "--tensor-parallel-size", "8", "--tokenizer-mode", "deepseek_v32",
            "--tool-call-parser", "deepseek_v32", "--enable-auto-tool-choice", "--reasoning-parser", "deepseek_v3",
            "--speculative_config", '{"num_speculative_tokens":1, "method":"deepseek_mtp"}']
    args = {"model": "deepseek-ai/DeepSeek-V3.2", "tensor-parallel-size": 8, "tokenizer-mode": "deepseek_v32", "tool-call-parser": "deepseek_v32",
            "enable-auto-tool-choice": True, "reasoning-parser": "deepseek_v3", "speculative-config": {"num_speculative_tokens": 1, "method": "deepseek_mtp"}}
    # 259.58 tok/s over 8 streams -> 32.4 tok/s/stream; 1.30 tokens per step -> step 40 ms
    mtp_case("zzi-dsv32-mtp1-v015-low-accept", "0.15.0", "v-glm47-flash-spark-memory-climb-plateau", "deepseek-ai/DeepSeek-V3.2",
             "deepseek-ai/DeepSeek-V3.2", t0, 8, 128, 1000, 1000, 0.0401, [0.30], 10.0, 51, blocks, 64,
             "NVIDIA H200", 150754820096, int(128.4 * GiB), 8, argv, args, logs,
             "vllm bench serve random 1000/1000, 128 prompts, max-concurrency 8, ignore-eos; DeepSeek-V3.2 TP8 with deepseek_mtp k=1.", mc, {})


def dsv4():
    t0 = utc(2026, 4, 30, 14, 0, 0)
    blocks = 7440  # 256-token blocks
    def logs(t0, api, eng, pool):
        return [(t0 - 900, f"(APIServer pid={api}) INFO {ts(t0 - 900)} [utils.py:299] vLLM API server version 0.20.0"),
                (t0 - 899, f"(APIServer pid={api}) INFO {ts(t0 - 899)} [utils.py:233] non-default args: {{'model_tag': 'deepseek-ai/DeepSeek-V4-Flash', 'model': 'deepseek-ai/DeepSeek-V4-Flash', 'trust_remote_code': True, 'tensor_parallel_size': 4, 'enable_expert_parallel': True, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 2}}}}"),
                (t0 - 520, f"(EngineCore pid={eng}) INFO {ts(t0 - 520)} [kv_cache_utils.py:1319] GPU KV cache size: {pool:,} tokens"),
                (t0 - 480, f"(APIServer pid={api}) INFO {ts(t0 - 480)} [api_server.py:595] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    argv = ["vllm", "serve", "deepseek-ai/DeepSeek-V4-Flash", "--trust-remote-code", "--tensor-parallel-size", "4", "--enable-expert-parallel",
            "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']
    args = {"model": "deepseek-ai/DeepSeek-V4-Flash", "tensor-parallel-size": 4, "enable-expert-parallel": True,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 2}}
    # TPOT 7.98 ms with mean acceptance length 1.21 -> step 9.66 ms; rates 0.149 / 0.0567
    mtp_case("zzi-dsv4-flash-mtp2-greedy-proposal-10pct", "0.20.0", "o-qwen35-08b-mtp-slower-confounded", "deepseek-ai/DeepSeek-V4-Flash",
             "deepseek-ai/DeepSeek-V4-Flash", t0, 1, 32, 1024, 256, 0.00966, [0.149, 0.0567], 5.0, 21, blocks, 256,
             "NVIDIA B200", 191514165248, int(171.2 * GiB), 4, argv, args, logs,
             "random 1024/256, 32 prompts, max-concurrency 1, temperature 1.0; DeepSeek-V4-Flash TP4+EP, MTP k=2 (v0.20.0 greedy draft proposal).",
             None, {"mamba_block_size": "None", "mamba_cache_mode": "none"})


if __name__ == "__main__":
    want = set(sys.argv[1:])
    for f in (glm, qwen_draft, dsv32, dsv4):
        f()
