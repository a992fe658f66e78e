"""Builders of the ze-* cases (writer ze). Run: python3 cases/_tools/ze/cases.py
Deterministic (seeded RNGs, fixed epochs). Parameters from each case.yaml (quoted / assumed)."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim import R, Sim, epoch, exposition, stats_line, vtime, write_bundle  # noqa: E402

GiB = 1024 ** 3


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def cfg_0180(blocks, block_size=16, prefix=True, mamba=None):
    c = {"_block_size_resolved": "True", "block_size": str(block_size), "cache_dtype": "auto", "calculate_kv_scales": "False",
         "cpu_kvcache_space_bytes": "None", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": "0.9",
         "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
         "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
         "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
         "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
         "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
         "user_specified_block_size": "False"}
    if mamba:
        c.update(mamba)
    return c


def cfg_0110(blocks, prefix=True):
    return {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": "0.9",
            "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
            "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def scrapes(sim, t0, t1, dt, **kw):
    out, t = [], t0
    while t <= t1 + 1e-6:
        out.append((t, exposition(sim, t, **kw)))
        t += dt
    return out


def stats_logs(sim, t0, t1, loc, api=1):
    out, t = [], t0 + 10
    while t <= t1 + 1e-6:
        out.append(f"(APIServer pid={api}) INFO {vtime(t)} [{loc}] " + stats_line(sim, t - 10, t))
        t += 10
    return out


def gpu_rows(t0, t1, dev, step=10):
    rows, t = [], t0
    while t <= t1 + 1e-6:
        rows.append({"t": t, "devices": dev}); t += step
    return rows


# ------------------------------------------------------------------ A: Qwen3.5-9B, 18 x 80K, pool overfull
QWEN35_9B = {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "image_token_id": 248056,
    "video_token_id": 248057, "vision_start_token_id": 248053, "vision_end_token_id": 248054, "tie_word_embeddings": False,
    "transformers_version": "4.57.0.dev0",
    "text_config": {"model_type": "qwen3_5_text", "attention_bias": False, "attn_output_gate": True, "dtype": "bfloat16",
                    "eos_token_id": 248044, "full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu",
                    "hidden_size": 4096, "intermediate_size": 12288,
                    "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 8,
                    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
                    "linear_num_value_heads": 32, "linear_value_head_dim": 128, "mamba_ssm_dtype": "float32",
                    "max_position_embeddings": 262144, "mtp_num_hidden_layers": 1, "num_attention_heads": 16,
                    "num_hidden_layers": 32, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25,
                                        "mrope_interleaved": True, "mrope_section": [11, 11, 10]},
                    "tie_word_embeddings": False, "use_cache": True, "vocab_size": 248320},
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152, "out_hidden_size": 4096,
                      "num_heads": 16, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2}}


def ze_a():
    cid = "ze-qwen35-9b-80k-x18-kv-flush"
    rng = random.Random(2608)
    model = "default_model"
    t_boot = epoch(2026, 3, 30, 2, 10, 0)
    t0, t1 = epoch(2026, 3, 30, 2, 30, 0), epoch(2026, 3, 30, 2, 40, 0)
    blocks, bs = 2851, 528
    cnt = [0]

    def new_req(t):
        if cnt[0] >= 60:
            return None
        cnt[0] += 1
        return R(rid=hexid(rng), t_arrive=t + rng.uniform(0.0, 0.06), prompt=80000 + rng.randint(200, 3950), max_out=800)

    cost = lambda p, d, ctx, n: 0.008 + p / 24000 + ctx * 32768 / 3.0e12 + d * 0.0003
    sim = Sim(blocks=blocks, block_size=bs, budget=65536, max_seqs=128, cost=cost, extra_blocks_per_req=3)
    sim.run([], t0 + 20, t1 + 1, closed_loop=18, new_req=new_req, flush_at=[t0 + 299.6])
    # mfu counters (--enable-mfu-metrics): ~2 x 9e9 flops per computed token, weights read per step
    for _, st in sim.snap:
        c = st["c"]
        toks = c["prompt"] + c["recomputed"] + c["gen"]
        c["flops"] = 2 * 8.95e9 * toks
        c["rbytes"] = 17.9e9 * st["iters"] + 32768 * toks
        c["wbytes"] = 32768 * toks
    cc = cfg_0180(blocks, bs, prefix=False, mamba={"mamba_block_size": "528", "mamba_page_size_padded": "2162688",
                                                   "mamba_ssm_cache_dtype": "float32"})
    texts = scrapes(sim, t0, t1, 10.0, ver="0180", model=model, cache_cfg=cc, t_created=t_boot + 160, mfu=True)
    A, E = "(APIServer pid=1) ", "(EngineCore_DP0 pid=212) "
    nd = ("{'model_tag': 'Qwen3.5-9B', 'host': '::', 'port': 8000, 'model': 'Qwen3.5-9B', 'served_model_name': ['default_model'], "
          "'reasoning_parser': 'qwen3', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_xml', "
          "'max_num_batched_tokens': 65536, 'max_num_seqs': 128, 'enable_prefix_caching': False, "
          "'language_model_only': True, 'enable_prompt_tokens_details': True, 'enable_mfu_metrics': True}")
    logs = [A + f"INFO {vtime(t_boot)} [utils.py:238] non-default args: {nd}",
            A + f"INFO {vtime(t_boot + 6)} [model.py:1520] Resolved architecture: Qwen3_5ForConditionalGeneration",
            A + f"INFO {vtime(t_boot + 6)} [model.py:1995] Using max model len 262144",
            A + f"INFO {vtime(t_boot + 6)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=65536.",
            A + f"INFO {vtime(t_boot + 6)} [config.py:418] Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.",
            A + f"INFO {vtime(t_boot + 6)} [config.py:449] Padding mamba page size by 0.00% to ensure that mamba page size and attention page size are exactly equal.",
            E + f"INFO {vtime(t_boot + 48)} [gpu_model_runner.py:4233] Model loading took 17.66 GiB memory and 31.2 seconds",
            E + f"INFO {vtime(t_boot + 112)} [gpu_worker.py:379] Available KV cache memory: 45.94 GiB",
            E + f"INFO {vtime(t_boot + 112)} [kv_cache_utils.py:1313] GPU KV cache size: 1,505,328 tokens, Maximum concurrency for 262,144 tokens per request: 5.70x",
            E + f"INFO {vtime(t_boot + 150)} [core.py:272] init engine (profile, create kv cache, warmup model) took 101.44 seconds",
            A + f"INFO {vtime(t_boot + 160)} [api_server.py:588] Starting vLLM server on http://[::]:8000"]
    logs += stats_logs(sim, t0, t1, "loggers.py:259")
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": int(79.65 * GiB), "memory_used": int(71.9 * GiB),
            "processes": [{"pid": 212, "name": "VLLM::EngineCore", "used_memory": int(71.3 * GiB)}]}]
    argv = ["vllm", "serve", "Qwen3.5-9B", "--served-model-name", "default_model", "--enable-prompt-tokens-details",
            "--enable-mfu-metrics", "--max-num-batched-tokens=64K", "--max-num-seqs", "128", "--reasoning-parser", "qwen3",
            "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_xml", "--no-enable-prefix-caching", "--port", "8000",
            "--host", "::", "--language-model-only"]
    args = {"model": "Qwen3.5-9B", "served-model-name": "default_model", "enable-prompt-tokens-details": True,
            "enable-mfu-metrics": True, "max-num-batched-tokens": 65536, "max-num-seqs": 128, "reasoning-parser": "qwen3",
            "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_xml", "enable-prefix-caching": False,
            "port": 8000, "host": "::", "language-model-only": True}
    write_bundle(cid, texts=texts, t0=t0, t1=t1, interval=10.0, endpoint="http://[pod-ipv6]:8000",
                 notes="vllm bench serve --request-rate 18 --max-concurrency 18 --num-prompts 60 --input-len 80000 --output-len 800 started at +20 s; for a while the metrics show no throughput.",
                 server={"version": {"version": "0.18.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "root": "Qwen3.5-9B", "max_model_len": 262144}]}, "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=QWEN35_9B, gpu=gpu_rows(t0, t1, dev), logs=logs)
    return sim


# ------------------------------------------------------------------ B: T4, 8K prompts at 1.2 req/s
QWEN25_15B = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
              "hidden_act": "silu", "hidden_size": 1536, "initializer_range": 0.02, "intermediate_size": 8960,
              "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 12,
              "num_hidden_layers": 28, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
              "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
              "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}


def ze_b():
    cid = "ze-t4-8k-prompts-1p2rps-queue"
    rng = random.Random(118)
    model = "Qwen/Qwen2.5-1.5B-Instruct"
    t_boot = epoch(2026, 5, 18, 13, 2, 0)
    t0, t1 = epoch(2026, 5, 18, 13, 40, 0), epoch(2026, 5, 18, 13, 50, 0)
    blocks = 22443
    reqs, t = [], t0 - 200
    while t < t1 + 5:
        t += rng.expovariate(1.2)
        reqs.append(R(rid=hexid(rng), t_arrive=t, prompt=8192 + rng.randint(-40, 40), max_out=300))
    cost = lambda p, d, ctx, n: 0.010 + p / 18000 + d * 0.0006 + ctx * 28672 / 2.6e11
    sim = Sim(blocks=blocks, block_size=16, budget=2048, max_seqs=32, cost=cost)
    sim.run(reqs, t0 - 200, t1 + 1)
    for _, st in sim.snap:   # prefix caching on, random prompts: every prompt token queried, none hit
        st["c"]["queries"] = sum(r.prompt for r in sim.all if r.t_sched is not None and r.t_sched <= _)
    texts = scrapes(sim, t0, t1, 10.0, ver="0180", model=model, cache_cfg=cfg_0180(blocks), t_created=t_boot + 95)
    A, E = "(APIServer pid=1) ", "(EngineCore_DP0 pid=96) "
    nd = "{'model_tag': '%s', 'model': '%s', 'dtype': 'half', 'max_model_len': 16384, 'max_num_seqs': 32}" % (model, model)
    logs = [A + f"INFO {vtime(t_boot)} [utils.py:238] non-default args: {nd}",
            A + f"WARNING {vtime(t_boot + 4)} [config.py:1511] Casting torch.bfloat16 to torch.float16.",
            A + f"INFO {vtime(t_boot + 4)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=2048.",
            E + f"INFO {vtime(t_boot + 30)} [gpu_model_runner.py:4233] Model loading took 2.89 GiB memory and 9.8 seconds",
            E + f"INFO {vtime(t_boot + 70)} [gpu_worker.py:379] Available KV cache memory: 9.59 GiB",
            E + f"INFO {vtime(t_boot + 70)} [kv_cache_utils.py:1313] GPU KV cache size: 359,088 tokens, Maximum concurrency for 16,384 tokens per request: 21.92x",
            A + f"INFO {vtime(t_boot + 95)} [api_server.py:588] Starting vLLM server on http://0.0.0.0:8000"]
    logs += stats_logs(sim, t0, t1, "loggers.py:259")
    dev = [{"index": 0, "name": "Tesla T4", "memory_total": int(15.0 * GiB), "memory_used": int(13.9 * GiB),
            "processes": [{"pid": 96, "name": "VLLM::EngineCore", "used_memory": int(13.5 * GiB)}]}]
    argv = ["vllm", "serve", model, "--dtype", "half", "--max-model-len", "16384", "--max-num-seqs", "32"]
    write_bundle(cid, texts=texts, t0=t0, t1=t1, interval=10.0, endpoint="http://g4dn-node:8000",
                 notes="rate sweep step 1.20 req/s (Poisson), 8192-token prompts, 300 output tokens; started 200 s before the window.",
                 server={"version": {"version": "0.18.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 16384}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": model, "dtype": "half", "max-model-len": 16384, "max-num-seqs": 32}},
                 model_config=QWEN25_15B, gpu=gpu_rows(t0, t1, dev), logs=logs)
    return sim


# ------------------------------------------------------------------ C: Jetson Thor, Qwen3-8B, concurrency 8, healthy
QWEN3_8B = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
            "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
            "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
            "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
            "vocab_size": 151936}


def ze_c():
    cid = "ze-thor-qwen3-8b-c8-bench-healthy"
    rng = random.Random(1012)
    model = "qwen3"
    t_boot = epoch(2025, 10, 12, 8, 0, 0)
    t0, t1 = epoch(2025, 10, 12, 8, 20, 0), epoch(2025, 10, 12, 8, 30, 0)
    blocks = 40960

    def new_req(t):
        out = 128 if rng.random() < 0.9 else rng.randint(60, 127)
        return R(rid=hexid(rng), t_arrive=t + rng.uniform(0.001, 0.01), prompt=2042 + rng.randint(-30, 30), max_out=out)

    cost = lambda p, d, ctx, n: 0.060 + p / 6800 + d * 0.0012 + ctx * 147456 / 2.2e11
    sim = Sim(blocks=blocks, block_size=16, budget=8192, max_seqs=256, cost=cost)
    sim.run([], t0 - 30, t1 + 1, closed_loop=8, new_req=new_req)
    for _, st in sim.snap:
        st["c"]["queries"] = sum(r.prompt for r in sim.all if r.t_sched is not None and r.t_sched <= _)
    texts = scrapes(sim, t0, t1, 10.0, ver="0110", model=model, cache_cfg=cfg_0110(blocks), t_created=t_boot + 240)
    A, E = "(APIServer pid=1) ", "(EngineCore_DP0 pid=188) "
    nd = "{'model_tag': '/models/Qwen/Qwen3-8B', 'model': '/models/Qwen/Qwen3-8B', 'served_model_name': ['qwen3']}"
    logs = [A + f"INFO {vtime(t_boot)} [api_server.py:1839] vLLM API server version 0.11.0",
            A + f"INFO {vtime(t_boot)} [utils.py:233] non-default args: {nd}",
            A + f"INFO {vtime(t_boot + 5)} [model.py:1510] Using max model len 40960",
            A + f"INFO {vtime(t_boot + 5)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
            E + f"INFO {vtime(t_boot + 95)} [gpu_model_runner.py:2602] Model loading took 15.27 GiB and 84.1 seconds",
            E + f"INFO {vtime(t_boot + 180)} [gpu_worker.py:298] Available KV cache memory: 90.00 GiB",
            E + f"INFO {vtime(t_boot + 180)} [kv_cache_utils.py:1087] GPU KV cache size: 655,360 tokens",
            E + f"INFO {vtime(t_boot + 180)} [kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: 16.00x",
            E + f"INFO {vtime(t_boot + 235)} [core.py:210] init engine (profile, create kv cache, warmup model) took 138.52 seconds",
            A + f"INFO {vtime(t_boot + 240)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000"]
    logs += stats_logs(sim, t0, t1, "loggers.py:123")
    argv = ["vllm", "serve", "/models/Qwen/Qwen3-8B", "--served-model-name", "qwen3"]
    write_bundle(cid, texts=texts, t0=t0, t1=t1, interval=10.0, endpoint="http://localhost:8000",
                 notes="vllm bench serve random 2048 in / 128 out, --max-concurrency 8, repeated back to back; checking whether the server is the bottleneck.",
                 server={"version": {"version": "0.11.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "root": "/models/Qwen/Qwen3-8B", "max_model_len": 40960}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": "/models/Qwen/Qwen3-8B", "served-model-name": "qwen3"}},
                 model_config=QWEN3_8B, gpu=None, logs=logs)
    return sim


if __name__ == "__main__":
    which = sys.argv[1:] or ["a", "b", "c"]
    for w in which:
        globals()["ze_" + w]()
        print("built", w)
