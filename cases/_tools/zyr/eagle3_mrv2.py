"""zyr-eagle3-mrv2-k7-low-acceptance: Qwen3-8B + EAGLE3 (k=7) on Model Runner V2, MT-Bench
shaped closed loop of 80 streams, acceptance ~20 %. V1 metrics of a 2026 main build."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import (Hist, counter_lines, gauge_lines, buckets_125, write_bundle, rng)  # noqa

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "zyr-eagle3-mrv2-k7-low-acceptance")
MODEL = "Qwen/Qwen3-8B"
L = {"model_name": MODEL, "engine": "0"}
T0 = 1776760200.0          # 2026-04-21 08:30:00 UTC
START = T0 - 300.0         # server started 5 min before the capture
INTERVAL = 10.0
N = 37                     # 6 minutes
K = 7
POS = [0.52, 0.31, 0.20, 0.13, 0.10, 0.075, 0.059]   # per-position acceptance, sum 1.394
STEP_S = 0.0413            # one verify step with 80 running
CONC = 80
OUT_LEN = 256
MAX_LEN = 40960
BLOCK = 16
# KV sizing (H100 80GB, util 0.9): 72.43 GiB budget - 15.27 weights - 0.88 drafter - 16.60 profiled
# peak (sampler + rejection sampler profiled at max_num_seqs 1024 x 8 positions x 151,936-vocab fp32
# logits/probs, plus 32,768-token forward activations)
KV_GIB = 72.43 - 15.27 - 0.88 - 16.60
BYTES_PER_TOKEN = 2 * (36 + 1) * 8 * 128 * 2   # target 36 layers + 1 EAGLE3 layer, 8 KV heads, d=128, bf16
NUM_BLOCKS = int(KV_GIB * 2 ** 30 // (BYTES_PER_TOKEN * BLOCK))
POOL_TOKENS = NUM_BLOCKS * BLOCK

LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]


def main():
    r = rng(40551)
    H = {
        "ttft": Hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B, L),
        "itl": Hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", TPOT_B, L),
        "tpot": Hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", TPOT_B, L),
        "e2e": Hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B, L),
        "queue": Hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B, L),
        "infer": Hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B, L),
        "prefill": Hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B, L),
        "decode": Hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B, L),
        "ptok": Hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", buckets_125(MAX_LEN), L),
        "gtok": Hist("vllm:request_generation_tokens", "Number of generation tokens processed.", buckets_125(MAX_LEN), L),
        "maxtok": Hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", buckets_125(MAX_LEN), L),
        "iter": Hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
                     [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], L),
    }
    C = {"prompt": 0, "gen": 0, "succ_len": 0, "pq": 0, "ph": 0, "drafts": 0, "dtok": 0, "acc": 0,
         "pos": [0] * K}
    # warm-up traffic before the capture (the same loop had been running ~2 min)
    scrapes, logs_run = [], []
    carry = 0.0
    for i in range(-12, N):
        t = T0 + i * INTERVAL
        steps = int(INTERVAL / (STEP_S * r.uniform(0.985, 1.02)))
        running = CONC
        drafts = steps * running
        acc_pos = [int(round(drafts * p * r.uniform(0.97, 1.03))) for p in POS]
        acc = sum(acc_pos)
        gen = drafts + acc
        # finished requests: 256 tokens each
        carry += gen / OUT_LEN
        fin = int(carry)
        carry -= fin
        prompts = [max(12, int(r.gauss(76, 28))) for _ in range(fin)]
        ptoks = sum(prompts)
        C["prompt"] += ptoks
        C["gen"] += gen
        C["succ_len"] += fin
        C["pq"] += ptoks
        C["drafts"] += drafts
        C["dtok"] += drafts * K
        C["acc"] += acc
        for j in range(K):
            C["pos"][j] += acc_pos[j]
        step_obs = 0
        for s in range(steps):
            tok = int(round(gen / steps))
            if s < fin:
                tok += prompts[s % max(1, fin)] if fin else 0
            H["iter"].observe(tok)
        # ITL: one observation per running request per step
        for b in range(10):
            v = STEP_S * r.uniform(0.93, 1.10)
            H["itl"].observe(v, drafts // 10)
        for p in prompts:
            ttft = r.uniform(0.045, 0.21)
            q = r.uniform(0.0005, 0.004)
            dec = (OUT_LEN - 1) * STEP_S / (1 + sum(POS)) * r.uniform(0.96, 1.05)
            H["ttft"].observe(ttft)
            H["queue"].observe(q)
            H["prefill"].observe(ttft - q)
            H["decode"].observe(dec)
            H["infer"].observe(ttft - q + dec)
            H["e2e"].observe(ttft + dec)
            H["tpot"].observe(dec / (OUT_LEN - 1))
            H["ptok"].observe(p)
            H["gtok"].observe(OUT_LEN)
            H["maxtok"].observe(OUT_LEN)
        # KV usage: 80 requests at a uniform point of their 256-token decode
        used_blocks = sum(-(-(76 + r.randint(1, OUT_LEN) + K) // BLOCK) for _ in range(running))
        usage = used_blocks / NUM_BLOCKS
        if i >= 0:
            scrapes.append({"t": t, "status": 200, "text": render(H, C, running, 0, usage)})
            logs_run.append((t, ptoks / INTERVAL, gen / INTERVAL, running, usage, drafts, acc, acc_pos))
    write(scrapes, logs_run)


def render(H, C, running, waiting, usage):
    cr = START + 40.0
    out = []
    out += gauge_lines("vllm:num_requests_running", "Number of requests in model execution batches.", [(L, running)])
    out += gauge_lines("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(L, waiting)])
    out += gauge_lines("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [(L, round(usage, 6))])
    out += counter_lines("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", [(L, C["pq"])], cr)
    out += counter_lines("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [(L, C["ph"])], cr)
    out += counter_lines("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(L, 0)], cr)
    out += counter_lines("vllm:prompt_tokens", "Number of prefill tokens processed.", [(L, C["prompt"])], cr)
    out += counter_lines("vllm:generation_tokens", "Number of generation tokens processed.", [(L, C["gen"])], cr)
    rs = []
    for reason, v in (("stop", 0), ("length", C["succ_len"]), ("abort", 0)):
        d = dict(L)
        d["finished_reason"] = reason
        rs.append((d, v))
    out += counter_lines("vllm:request_success", "Count of successfully processed requests.", rs, cr)
    for k in ("ptok", "gtok", "iter", "maxtok", "ttft", "itl", "tpot", "e2e", "queue", "infer", "prefill", "decode"):
        out += H[k].render(cr)
    out += counter_lines("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", [(L, C["drafts"])], cr)
    out += counter_lines("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", [(L, C["dtok"])], cr)
    out += counter_lines("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", [(L, C["acc"])], cr)
    ps = []
    for j in range(K):
        d = dict(L)
        d["position"] = str(j)
        ps.append((d, C["pos"][j]))
    out += counter_lines("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", ps, cr)
    info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": "True", "engine": "0",
            "gpu_memory_utilization": "0.9", "is_attention_free": "False",
            "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
            "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * 2 ** 30)}
    out += gauge_lines("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", [(info, 1.0)])
    return "\n".join(out) + "\n"


def ts(t):
    import time
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


def write(scrapes, logs_run):
    conc = POOL_TOKENS / MAX_LEN
    lines = [
        "(APIServer pid=1) INFO %s [api_server.py:1896] vLLM API server version 0.19.1rc1.dev212+g3f7a0c2e1" % ts(START),
        "(APIServer pid=1) INFO %s [utils.py:328] non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'port': 9000, 'model': 'Qwen/Qwen3-8B', 'max_num_batched_tokens': 32768, 'speculative_config': {'method': 'eagle3', 'model': 'RedHatAI/Qwen3-8B-speculator.eagle3', 'num_speculative_tokens': 7}}" % ts(START + 1),
        "(EngineCore_DP0 pid=312) INFO %s [core.py:93] Initializing a V1 LLM engine (v0.19.1rc1.dev212+g3f7a0c2e1) with config: model='Qwen/Qwen3-8B', speculative_config=SpeculativeConfig(method='eagle3', model='RedHatAI/Qwen3-8B-speculator.eagle3', num_spec_tokens=7), dtype=torch.bfloat16, max_seq_len=40960, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True" % ts(START + 9),
        "(EngineCore_DP0 pid=312) INFO %s [gpu_model_runner.py:2911] Using Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER=1)" % ts(START + 12),
        "(EngineCore_DP0 pid=312) INFO %s [gpu_model_runner.py:3102] Model loading took 16.15 GiB and 7.41 seconds" % ts(START + 24),
        "(EngineCore_DP0 pid=312) INFO %s [gpu_worker.py:298] Available KV cache memory: %.2f GiB" % (ts(START + 31), KV_GIB),
        "(EngineCore_DP0 pid=312) INFO %s [kv_cache_utils.py:1087] GPU KV cache size: %s tokens" % (ts(START + 31), format(POOL_TOKENS, ",")),
        "(EngineCore_DP0 pid=312) INFO %s [kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: %.2fx" % (ts(START + 31), conc),
        "(EngineCore_DP0 pid=312) INFO %s [gpu_model_runner.py:3874] Graph capturing finished in 8 secs, took 0.71 GiB" % ts(START + 39),
        "(APIServer pid=1) INFO %s [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:9000" % ts(START + 44),
    ]
    for (t, pt, gt, run, use, drafts, acc, acc_pos) in logs_run:
        lt = t - 3.0
        lines.append("(APIServer pid=1) INFO %s [loggers.py:271] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: 0.0%%" % (ts(lt), pt, gt, run, use * 100))
        rates = ", ".join("%.3f" % (a / drafts) for a in acc_pos)
        lines.append("(APIServer pid=1) INFO %s [metrics.py:101] SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s, Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %s, Avg Draft acceptance rate: %.1f%%" % (ts(lt), 1 + acc / drafts, acc / INTERVAL, drafts * K / INTERVAL, acc, drafts * K, rates, 100.0 * acc / (drafts * K)))
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:9000",
                "started_at": scrapes[0]["t"], "ended_at": scrapes[-1]["t"], "interval_s": INTERVAL,
                "notes": "Qwen3-8B + EAGLE3 k=7 under Model Runner V2; MT-Bench loop at concurrency 80."}
    server = {"version": {"version": "0.19.1rc1.dev212+g3f7a0c2e1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "max_model_len": MAX_LEN}]},
              "health": 200}
    engine_args = {"argv": ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "9000", "--speculative-config",
                            '{"method": "eagle3", "model": "RedHatAI/Qwen3-8B-speculator.eagle3", "num_speculative_tokens": 7}',
                            "--max-num-batched-tokens", "32768"],
                   "args": {"port": 9000, "speculative-config": {"method": "eagle3", "model": "RedHatAI/Qwen3-8B-speculator.eagle3", "num_speculative_tokens": 7},
                            "max-num-batched-tokens": 32768, "block_size": 16, "gpu_memory_utilization": 0.9,
                            "enable_prefix_caching": True, "cache_dtype": "auto", "num_gpu_blocks": NUM_BLOCKS}}
    model_config = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
                    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288,
                    "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
                    "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
                    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
                    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
                    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
    used = int((72.43 + 0.55) * 2 ** 30)
    gpu = [{"t": s["t"], "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
                                      "memory_used": used, "processes": [{"pid": 312, "name": "VLLM::EngineCore", "used_memory": used - 530 * 2 ** 20}]}]}
           for s in scrapes]
    write_bundle(os.path.join(CASE, "bundle"), manifest, scrapes, server, engine_args, model_config, gpu,
                 "\n".join(lines) + "\n")
    print("blocks", NUM_BLOCKS, "pool tokens", POOL_TOKENS, "conc", round(POOL_TOKENS / MAX_LEN, 2))


if __name__ == "__main__":
    main()
