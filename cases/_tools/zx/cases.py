"""Writer zx's cases: builds cases/zx-*/bundle with gen.py (copied from cases/_tools/zr/gen.py).

Run from the worktree root:  /work/main/.venv/bin/python cases/_tools/zx/cases.py
Every number that is not quoted from the source is listed under `assumed:` in the case.yaml.
Families / HELP / buckets come from the last scrape of an existing case bundle of a nearby release.
"""
from __future__ import annotations

import datetime as dt
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1024 ** 3
V0102 = "b-qwen3next-caching-disabled"           # vLLM 0.10.2
V0200 = "h-qwen36-27b-block784-370tok-batch"     # vLLM 0.20.0
V0130 = "q-qwen3-4b-awq-idle-gap-ttft"           # vLLM 0.13.0
V0221 = "c-mi300x-fp8-kv-garbage-minimax-m3"     # vLLM 0.22.1rc1


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


ts = gen.ts


def kv_lines(pid: str, t: float, avail: float, tokens: int, mml: int, refs: tuple[str, str, str]) -> list:
    return [(t, f"{pid} INFO {ts(t)} [{refs[0]}] Available KV cache memory: {avail:.2f} GiB"),
            (t + 0.01, f"{pid} INFO {ts(t)} [{refs[1]}] GPU KV cache size: {tokens:,} tokens"),
            (t + 0.02, f"{pid} INFO {ts(t)} [{refs[2]}] Maximum concurrency for {mml:,} tokens per request: {tokens / mml:.2f}x")]


def loop_reqs(rnd, t0: float, t1: float, users: int, prompt, cached, gen_fn, max_tokens, step: float, tps: float,
              prefill: float, think, reason_fn) -> list[Req]:
    """Closed loop: `users` clients, each sends its next request `think` seconds after the last answer."""
    reqs, rid = [], 0
    for u in range(users):
        t = t0 + u * rnd.uniform(0.5, 3.0)
        while t < t1:
            p = prompt(rnd); mt = max_tokens(rnd); g = gen_fn(rnd, mt)
            r = Req(rid=rid, t_arr=t, prompt=p, cached=cached(rnd, p), gen=g, max_tokens=mt, reason=reason_fn(g, mt))
            r.tps = tps; r.step_s = step
            r.t_sched = t + 0.004
            r.t_first = r.t_sched + prefill * (r.prompt - r.cached) / 1000.0 + 0.02
            r.t_end = r.t_first + r.steps() * r.step_s
            reqs.append(r); rid += 1
            t = r.t_end + think(rnd)
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i
    return reqs


def metrics_access(c: Case, api: str) -> list:
    return [(c.start + k * c.interval + 0.004, f'{api} INFO:     10.0.3.7:51544 - "GET /metrics HTTP/1.1" 200 OK') for k in range(c.n_scrapes)]


def h100(pid: int, used_gib: float, idx: int = 0, name: str = "NVIDIA H100 80GB HBM3", total: int = 85520809984) -> dict:
    u = int(used_gib * GiB)
    return {"index": idx, "name": name, "memory_total": total, "memory_used": u,
            "processes": [{"pid": pid, "name": "VLLM::Worker" if idx or pid > 500 else "VLLM::EngineCore", "used_memory": u - 520 * 1024 ** 2}]}


# ------------------------------------------------------------------------------------------
# 1. zx-qwen3next-fp8dyn-mtp-zero-accept (0.10.2, 2x H100, MTP k=2 on an FP8-dynamic MTP head)
# ------------------------------------------------------------------------------------------
def case_qwen3next() -> None:
    cid = "zx-qwen3next-fp8dyn-mtp-zero-accept"
    rnd = random.Random(1843)
    start = utc(2025, 9, 18, 7, 40, 0)
    model = "DevQuasar/Qwen.Qwen3-Next-80B-A3B-Instruct-FP8-Dynamic"
    mml = 32768
    avail = 28.04
    # template 0.10.2 hybrid layout: 136 tokens a block, 49,169 bytes a token incl. mamba state share
    blocks = int(avail * GiB / (136 * 49169))
    pool = blocks * 136
    labels = gen.tmpl_cc(V0102, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), enable_prefix_caching="False")
    c = Case(cid=cid, version="0.10.2", v0=False, model_name=model, model_root=model, max_model_len=mml, start=start,
             n_scrapes=61, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=136, max_num_seqs=256,
             spec_k=2, spec_pos_rates=[0.0, 0.0], tmpl=V0102, mm_hits=False)
    c.reqs = loop_reqs(rnd, start - 40, start + 330, 1, lambda r: r.randint(180, 1500), lambda r, p: 0,
                       lambda r, mt: r.randint(300, 900), lambda r: 2048, 0.0289, 1.0, 0.09,
                       lambda r: r.uniform(4, 14), lambda g, mt: "stop")
    api, eng, w0 = "(APIServer pid=2231)", "(EngineCore_DP0 pid=2417)", "(Worker_TP0 pid=2583)"
    ls = start - 900
    spec = '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'
    L = [(ls, f"{api} INFO {ts(ls)} [api_server.py:1896] vLLM API server version 0.10.2"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:328] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', "
                    f"'max_model_len': {mml}, 'tensor_parallel_size': 2, 'speculative_config': {spec}}}"),
         (ls + 6, f"{api} INFO {ts(ls + 6)} [__init__.py:742] Resolved architecture: Qwen3NextForCausalLM"),
         (ls + 6.1, f"{api} INFO {ts(ls + 6)} [__init__.py:1815] Using max model len {mml}"),
         (ls + 6.2, f"{api} WARNING {ts(ls + 6)} [speculative.py:439] Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may result in lower acceptance rate"),
         (ls + 6.3, f"{api} INFO {ts(ls + 6)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 12, f"{eng} INFO {ts(ls + 12)} [core.py:76] Initializing a V1 LLM engine (v0.10.2) with config: model='{model}', speculative_config=SpeculativeConfig(method='qwen3_next_mtp', model='{model}', num_spec_tokens=2), "
                   f"tokenizer='{model}', dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size=2, quantization=compressed-tensors, kv_cache_dtype=auto, enable_prefix_caching=False, enable_chunked_prefill=True"),
         (ls + 150, f"{w0} INFO {ts(ls + 150)} [gpu_model_runner.py:2338] Model loading took 41.87 GiB and 131.52 seconds"),
         (ls + 151, f"{w0} INFO {ts(ls + 151)} [gpu_model_runner.py:2370] Loading drafter model..."),
         (ls + 158, f"{w0} INFO {ts(ls + 158)} [gpu_model_runner.py:2392] Loading drafter model took 1.36 GiB and 6.80 seconds"),
         ]
    L += kv_lines(w0, ls + 230, avail, pool, mml, ("gpu_worker.py:298", "kv_cache_utils.py:1028", "kv_cache_utils.py:1032"))
    L[-2] = (L[-2][0], L[-2][1].replace(w0, eng)); L[-1] = (L[-1][0], L[-1][1].replace(w0, eng))
    L += [(ls + 262, f"{eng} INFO {ts(ls + 262)} [core.py:217] init engine (profile, create kv cache, warmup model) took 98.14 seconds"),
          (ls + 264, f"{api} INFO {ts(ls + 264)} [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (ls + 266, f"{api} INFO {ts(ls + 266)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 30, start + 300, 2231, "loggers.py:123", spec_ref="metrics.py:96")
    L += gen.access_lines(c, 2231, "/v1/chat/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--max-model-len", str(mml), "--tensor-parallel-size", "2",
                      "--speculative-config", spec],
             "args": {"model": model, "host": "0.0.0.0", "max-model-len": mml, "tensor-parallel-size": 2, "speculative-config": spec}}
    mc = json.loads((ROOT / "cases" / V0102 / "bundle" / "model_config.json").read_text())
    mc["quantization_config"] = {"config_groups": {"group_0": {"input_activations": {"dynamic": True, "num_bits": 8, "strategy": "token", "symmetric": True, "type": "float"},
                                 "targets": ["Linear"], "weights": {"dynamic": False, "num_bits": 8, "strategy": "channel", "symmetric": True, "type": "float"}}},
                                 "format": "float-quantized", "ignore": ["lm_head"], "quant_method": "compressed-tensors", "quantization_status": "compressed"}
    used = 0.9 * 79.6 + 0.55
    dev = [h100(2583, used, 0), h100(2584, used, 1)]
    dev[1]["processes"][0]["pid"] = 2584
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(c.version, model, model, mml, int(ls)), engine_args=eargs,
              model_config=mc, gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Captured while chatting with the model from one client after enabling MTP; speculative decoding felt no faster.",
              endpoint="http://gpu-node-2:8000")


# ------------------------------------------------------------------------------------------
# 2. zx-gemma4-31b-mtp-accept-under-1pct (0.20.1, 1x H100, MTP assistant k=4, 3 agent streams)
# ------------------------------------------------------------------------------------------
def case_gemma4() -> None:
    cid = "zx-gemma4-31b-mtp-accept-under-1pct"
    rnd = random.Random(41789)
    start = utc(2026, 5, 6, 6, 8, 0)
    model, served = "google/gemma-4-31B-it", "gemma-4-31b"
    mml = 65536
    pool = 81_920
    blocks = pool // 16
    labels = gen.tmpl_cc(V0200, gpu_memory_utilization="0.92", num_gpu_blocks=str(blocks), block_size="16",
                         enable_prefix_caching="True", cache_dtype="auto")
    c = Case(cid=cid, version="0.20.1", v0=False, model_name=served, model_root=model, max_model_len=mml, start=start,
             n_scrapes=61, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=16,
             spec_k=4, spec_pos_rates=[0.031, 0.0, 0.0, 0.0], tmpl=V0200, mm_hits=False)
    c.reqs = loop_reqs(rnd, start - 60, start + 330, 3, lambda r: r.randint(6000, 14000), lambda r, p: int(p * r.uniform(0.15, 0.3)) // 16 * 16,
                       lambda r, mt: r.randint(150, 600), lambda r: 4096, 0.032, 1.03, 0.62,
                       lambda r: r.uniform(0.5, 3.0), lambda g, mt: "stop")
    api, eng = "(APIServer pid=1)", "(EngineCore_DP0 pid=288)"
    ls = start - 700
    spec = '{"model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 4}'
    L = [(ls, f"{api} INFO {ts(ls)} [api_server.py:2061] vLLM API server version 0.20.1"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:302] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'served_model_name': ['{served}'], "
                    f"'max_model_len': {mml}, 'gpu_memory_utilization': 0.92, 'max_num_seqs': 16, 'enable_prefix_caching': True, 'speculative_config': {spec}}}"),
         (ls + 5, f"{api} INFO {ts(ls + 5)} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration"),
         (ls + 5.1, f"{api} INFO {ts(ls + 5)} [model.py:1677] Using max model len {mml}"),
         (ls + 5.3, f"{api} INFO {ts(ls + 5)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 60, f"{eng} INFO {ts(ls + 60)} [gpu_model_runner.py:4380] Model loading took 58.42 GiB memory and 52.113 seconds"),
         (ls + 61, f"{eng} INFO {ts(ls + 61)} [gpu_model_runner.py:4402] Loading drafter model took 0.93 GiB memory"),
         ]
    L += kv_lines(eng, ls + 110, 10.48, pool, mml, ("gpu_worker.py:402", "kv_cache_utils.py:1388", "kv_cache_utils.py:1392"))
    L += [(ls + 140, f"{eng} INFO {ts(ls + 140)} [core.py:274] init engine (profile, create kv cache, warmup model) took 76.20 seconds"),
          (ls + 142, f"{api} INFO {ts(ls + 142)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (ls + 144, f"{api} INFO {ts(ls + 144)} [api_server.py:2130] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 50, start + 300, 1, "loggers.py:271", spec_ref="metrics.py:101")
    L += gen.access_lines(c, 1, "/v1/chat/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--served-model-name", served, "--max-model-len", str(mml),
                      "--gpu-memory-utilization", "0.92", "--max-num-seqs", "16", "--enable-prefix-caching", "--speculative-config", spec],
             "args": {"model": model, "host": "0.0.0.0", "served-model-name": served, "max-model-len": mml, "gpu-memory-utilization": 0.92,
                      "max-num-seqs": 16, "enable-prefix-caching": True, "speculative-config": spec}}
    dev = [h100(288, 0.92 * 79.6 + 0.5)]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(c.version, served, model, mml, int(ls)), engine_args=eargs,
              model_config=None, gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Agent traffic (3 conversations) against gemma-4-31B with the MTP assistant; the SpecDecoding log line shows almost no accepted drafts.",
              endpoint="http://192.168.1.20:8000")


# ------------------------------------------------------------------------------------------
# 3. zx-minimax-m2-awq-garbage-dec10-build (main of 2025-12-10, 2x DGX Spark TP2 over ray)
# ------------------------------------------------------------------------------------------
MINIMAX_M2_AWQ = {
    "architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072, "num_hidden_layers": 62,
    "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536,
    "num_local_experts": 256, "num_experts_per_tok": 8, "max_position_embeddings": 196608, "rope_theta": 5000000,
    "rotary_dim": 64, "vocab_size": 200064, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    "use_qk_norm": True, "qk_norm_type": "per_layer",
    "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True,
                            "modules_to_not_convert": ["gate", "lm_head", "embed_tokens"]},
}


def case_minimax() -> None:
    cid = "zx-minimax-m2-awq-garbage-dec10-build"
    rnd = random.Random(30445)
    start = utc(2025, 12, 11, 0, 58, 0)
    model = "QuantTrio/MiniMax-M2-AWQ"
    mml = 128000
    bpt_rank = 62 * 4 * 128 * 2 * 2          # 8 KV heads over 2 ranks, bf16
    avail = 19.46
    blocks = int(avail * GiB // (16 * bpt_rank))
    pool = blocks * 16
    labels = gen.tmpl_cc(V0130, gpu_memory_utilization="0.7", num_gpu_blocks=str(blocks), cache_dtype="auto")
    version = "0.13.0rc2.dev118+g7e2c4f1a3"
    c = Case(cid=cid, version=version, v0=False, model_name=model, model_root=model, max_model_len=mml, start=start,
             n_scrapes=61, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0130, mm_hits=False)
    mts = iter([100, 100, 300, 100, 1000, 100, 500, 100, 100, 200])
    c.reqs = loop_reqs(rnd, start + 12, start + 290, 1, lambda r: r.randint(25, 60), lambda r, p: 0,
                       lambda r, mt: mt, lambda r: next(mts, 100), 0.041, 1.0, 0.35,
                       lambda r: r.uniform(6, 25), lambda g, mt: "length")
    c.reqs[0].prompt = 29
    api, eng, w0 = "(APIServer pid=970)", "(EngineCore_DP0 pid=1204)", "(RayWorkerWrapper pid=1388)"
    ls = start - 1300
    L = [(ls, f"{api} INFO {ts(ls)} [api_server.py:1259] vLLM API server version {version}"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'port': 8888, 'enable_auto_tool_choice': True, "
                    f"'tool_call_parser': 'minimax_m2', 'model': '{model}', 'max_model_len': {mml}, 'load_format': 'fastsafetensors', 'reasoning_parser': 'minimax_m2_append_think', "
                    f"'distributed_executor_backend': 'ray', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.7}}"),
         (ls + 7, f"{api} INFO {ts(ls + 7)} [model.py:637] Resolved architecture: MiniMaxM2ForCausalLM"),
         (ls + 7.1, f"{api} INFO {ts(ls + 7)} [model.py:1750] Using max model len {mml}"),
         (ls + 7.2, f"{api} INFO {ts(ls + 7)} [awq_marlin.py:162] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel."),
         (ls + 7.3, f"{api} INFO {ts(ls + 7)} [scheduler.py:230] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 15, f"{eng} INFO {ts(ls + 15)} [core.py:93] Initializing a V1 LLM engine ({version}) with config: model='{model}', tokenizer='{model}', dtype=torch.float16, "
                   f"max_seq_len={mml}, tensor_parallel_size=2, pipeline_parallel_size=1, quantization=awq_marlin, kv_cache_dtype=auto, load_format=fastsafetensors, enable_prefix_caching=True"),
         (ls + 600, f"{w0} INFO {ts(ls + 600)} [gpu_model_runner.py:3549] Model loading took 58.77 GiB memory and 571.204 seconds"),
         ]
    L += kv_lines(eng, ls + 700, avail, pool, mml, ("gpu_worker.py:359", "kv_cache_utils.py:1087", "kv_cache_utils.py:1091"))
    L[-3] = (L[-3][0], L[-3][1].replace(eng, w0))
    L += [(ls + 760, f"{eng} INFO {ts(ls + 760)} [core.py:250] init engine (profile, create kv cache, warmup model) took 142.61 seconds"),
          (ls + 762, f"{api} INFO {ts(ls + 762)} [api_server.py:1998] Starting vLLM API server 0 on http://0.0.0.0:8888")]
    L += gen.stats_lines(c, start - 20, start + 300, 970, "loggers.py:257")
    L += gen.access_lines(c, 970, "/v1/chat/completions")
    L += metrics_access(c, api)
    L = [(t, l.replace("INFO:     10.20.0.", "INFO:     192.168.177.")) for t, l in L]
    argv = ["vllm", "serve", model, "--port", "8888", "--host", "0.0.0.0", "--gpu-memory-utilization", "0.7", "-tp", "2",
            "--distributed-executor-backend", "ray", "--max-model-len", str(mml), "--load-format", "fastsafetensors",
            "--enable-auto-tool-choice", "--tool-call-parser", "minimax_m2", "--reasoning-parser", "minimax_m2_append_think"]
    eargs = {"argv": argv, "args": {"model": model, "port": 8888, "host": "0.0.0.0", "gpu-memory-utilization": 0.7, "tensor-parallel-size": 2,
                                    "distributed-executor-backend": "ray", "max-model-len": mml, "load-format": "fastsafetensors",
                                    "enable-auto-tool-choice": True, "tool-call-parser": "minimax_m2", "reasoning-parser": "minimax_m2_append_think"}}
    # GB10 unified memory: NVML reports no framebuffer total; only the head node is sampled
    dev = [{"index": 0, "name": "NVIDIA GB10", "memory_total": 0, "memory_used": 0,
            "processes": [{"pid": 1388, "name": "ray::RayWorkerWrapper", "used_memory": int(84.6 * GiB)}]}]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(version, model, model, mml, int(ls)), engine_args=eargs,
              model_config=MINIMAX_M2_AWQ, gpu=gen.gpu_samples(c, dev), logs=L,
              notes="Head node of a 2x DGX Spark ray cluster after rebuilding vLLM from main (2025-12-10); test chats return garbled text.",
              endpoint="http://spark:8888")


# ------------------------------------------------------------------------------------------
# 4. zx-glm51-fp8-bf16-kv-nonsense-h200 (0.22.1rc1.dev69, 8x H200 TP8, bf16 KV, FLASHMLA_SPARSE)
# ------------------------------------------------------------------------------------------
GLM51_FP8 = {
    "architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": 6144, "num_hidden_layers": 78,
    "num_attention_heads": 64, "num_key_value_heads": 64, "kv_lora_rank": 512, "q_lora_rank": 2048,
    "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256, "index_head_dim": 128, "index_n_heads": 32,
    "index_topk": 2048, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 3,
    "moe_intermediate_size": 2048, "intermediate_size": 12288, "max_position_embeddings": 202752, "rope_theta": 1000000,
    "vocab_size": 154880, "torch_dtype": "bfloat16", "tie_word_embeddings": False, "num_nextn_predict_layers": 1,
    "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]},
}


def case_glm51() -> None:
    cid = "zx-glm51-fp8-bf16-kv-nonsense-h200"
    rnd = random.Random(44550)
    start = utc(2026, 6, 4, 2, 20, 0)
    model, served = "zai-org/GLM-5.1-FP8", "glm-5.1"
    mml = 202752
    bpt = 78 * (576 * 2 + 132)                 # bf16 latent + indexer key, every TP rank holds all tokens
    avail = 24.85
    blocks = int(avail * GiB // (64 * bpt))
    pool = blocks * 64
    labels = gen.tmpl_cc(V0221, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="64", cache_dtype="auto",
                         enable_prefix_caching="True")
    version = "0.22.1rc1.dev69+gf69ede495"
    c = Case(cid=cid, version=version, v0=False, model_name=served, model_root=model, max_model_len=mml, start=start,
             n_scrapes=61, interval=5.0, labels_cc=labels, pool_tokens=pool, block_size=64, max_num_seqs=128, tmpl=V0221, mm_hits=False)

    def g(r, mt):
        return mt if r.random() < 0.85 else r.randint(300, 1800)
    c.reqs = loop_reqs(rnd, start - 200, start + 320, 8, lambda r: r.randint(1500, 6000), lambda r, p: 0,
                       g, lambda r: 4096, 0.031, 1.0, 0.11, lambda r: r.uniform(0.2, 1.5),
                       lambda gg, mt: "length" if gg >= mt else "stop")
    api, eng, w0 = "(APIServer pid=1)", "(EngineCore_DP0 pid=402)", "(Worker_TP0 pid=540)"
    ls = start - 1500
    L = [(ls, f"{api} INFO {ts(ls)} [api_server.py:2090] vLLM API server version {version}"),
         (ls + 0.1, f"{api} INFO {ts(ls)} [utils.py:299] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'served_model_name': ['{served}'], "
                    f"'trust_remote_code': True, 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.9}}"),
         (ls + 8, f"{api} INFO {ts(ls + 8)} [model.py:560] Resolved architecture: GlmMoeDsaForCausalLM"),
         (ls + 8.1, f"{api} INFO {ts(ls + 8)} [model.py:1690] Using max model len {mml}"),
         (ls + 8.2, f"{api} INFO {ts(ls + 8)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (ls + 20, f"{eng} INFO {ts(ls + 20)} [core.py:101] Initializing a V1 LLM engine ({version}) with config: model='{model}', tokenizer='{model}', dtype=torch.bfloat16, "
                   f"max_seq_len={mml}, tensor_parallel_size=8, quantization=fp8, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True"),
         (ls + 40, f"{w0} INFO {ts(ls + 40)} [cuda.py:318] Using FLASHMLA_SPARSE attention backend out of potential backends: ['FLASHMLA_SPARSE', 'FLASHINFER_MLA_SPARSE']"),
         (ls + 520, f"{w0} INFO {ts(ls + 520)} [gpu_model_runner.py:4380] Model loading took 86.93 GiB memory and 471.330 seconds"),
         ]
    L += kv_lines(eng, ls + 640, avail, pool, mml, ("gpu_worker.py:436", "kv_cache_utils.py:1733", "kv_cache_utils.py:1734"))
    L[-3] = (L[-3][0], L[-3][1].replace(eng, w0))
    L += [(ls + 700, f"{eng} INFO {ts(ls + 700)} [core.py:274] init engine (profile, create kv cache, warmup model) took 171.52 seconds"),
          (ls + 702, f"{api} INFO {ts(ls + 702)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += gen.stats_lines(c, start - 30, start + 300, 1, "loggers.py:259")
    L += gen.access_lines(c, 1, "/v1/chat/completions")
    L += metrics_access(c, api)
    eargs = {"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--served-model-name", served, "--trust-remote-code",
                      "--tensor-parallel-size", "8", "--gpu-memory-utilization", "0.9"],
             "args": {"model": model, "host": "0.0.0.0", "served-model-name": served, "trust-remote-code": True,
                      "tensor-parallel-size": 8, "gpu-memory-utilization": 0.9}}
    tot = 150754820096
    used = int(0.9 * tot / GiB * GiB) + 600 * 1024 ** 2
    dev = [{"index": i, "name": "NVIDIA H200", "memory_total": tot, "memory_used": used,
            "processes": [{"pid": 540 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 580 * 1024 ** 2}]} for i in range(8)]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(version, served, model, mml, int(ls)), engine_args=eargs,
              model_config=GLM51_FP8, gpu=gen.gpu_samples(c, dev), logs=L,
              notes="GLM-5.1-FP8 on 8x H200 without --kv-cache-dtype fp8 (bf16 cache); the evaluation client reports nonsense answers.",
              endpoint="http://glm51-h200:8000")


if __name__ == "__main__":
    for f in (case_qwen3next, case_gemma4, case_minimax, case_glm51):
        f()
        print("built", f.__name__)
