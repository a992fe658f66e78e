"""zyu-aiperf-replayed-prompts-healthy: Llama-3.1-8B on one H100, aiperf at concurrency 10,
ISL 200: a 50-request run, then a 1000-request run that replays aiperf's 100 default prompts."""
import calendar, random, sys, time
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from prom import Engine, render, write_bundle

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyu-aiperf-replayed-prompts-healthy/bundle"
rnd = random.Random(449)
T0 = calendar.timegm((2025, 11, 7, 17, 24, 0))
IV, N = 5, 61
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
MML, NBLK, BS = 131072, 26071, 16
CONC, ISL, OSL = 10, 200, 200

reqs = []   # dict(ts, tf, te, p, g, hit)
def run(t_begin, n, entries):
    slots = [t_begin + 0.01 * k for k in range(CONC)]
    seen = set()
    for i in range(n):
        k = min(range(CONC), key=lambda j: slots[j])
        ts = slots[k]
        eid = i % entries if n > entries else i
        hit = 192 if eid in seen else 0
        seen.add(eid)
        ttft = (rnd.uniform(0.045, 0.085) if hit == 0 else rnd.uniform(0.014, 0.030))
        itl = rnd.uniform(0.0068, 0.0076)
        te = ts + ttft + (OSL - 1) * itl
        reqs.append(dict(ts=ts, tf=ts + ttft, te=te, p=ISL, g=OSL, hit=hit, itl=itl))
        slots[k] = te + rnd.uniform(0.002, 0.006)
    return max(slots)

end1 = run(22.0, 50, 100)          # 50 requests: every prompt new
end2 = run(end1 + 38.0, 1000, 100) # 1000 requests over 100 dataset entries: replays

scrapes, logs = [], []
logs += [
    "INFO 2025-11-07 17:18:00.520 gpu_model_runner.py:1447] Model loading took 14.9889 GiB and 18.506763 seconds\n",
    "INFO 2025-11-07 17:18:33.192 kv_cache_utils.py:637] GPU KV cache size: 417,136 tokens\n",
    "INFO 2025-11-07 17:18:33.193 kv_cache_utils.py:640] Maximum concurrency for 131,072 tokens per request: 3.18x\n",
    "INFO 2025-11-07 17:18:53.687 gpu_model_runner.py:1817] Graph capturing finished in 20 secs, took 0.65 GiB\n",
    "INFO 2025-11-07 17:18:53.725 core.py:163] init engine (profile, create kv cache, warmup model) took 53.20 seconds\n",
    "INFO 2025-11-07 17:18:54.83 metrics.py:538] vllm cache_config_info with initialization after num_gpu_blocks is: 26071\n",
]
CI = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
      "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(NBLK), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
      "swap_space_bytes": str(4 * 1024 ** 3)}

last = dict(p=0, g=0, q=0, h=0)
lastlog = dict(p=0, g=0, q=0, h=0, t=0)
lastrate = (0.0, 0.0)
for k in range(N):
    t = k * IV
    e = Engine(MML)
    # cumulative state as of time t (everything recomputed from the request list)
    for r in reqs:
        if r["ts"] <= t:
            e.c["prefix_q"] += r["p"]; e.c["prefix_h"] += r["hit"]
        if r["tf"] <= t:
            e.c["prompt"] += r["p"]
            e.first_token(r["tf"] - r["ts"], OSL)
            e.h["vllm:iteration_tokens_total"].observe(r["p"] - r["hit"] + 9)
            ndec = r["g"] - 1 if r["te"] <= t else min(r["g"] - 2, int((t - r["tf"]) / r["itl"]))
            e.c["gen"] += 1 + ndec
            e.h["vllm:inter_token_latency_seconds"].observe(r["itl"], ndec)
            e.h["tpot"].observe(r["itl"], ndec)
        if r["te"] <= t:
            e.finish(r["p"], r["g"], OSL, 0.0004, r["tf"] - r["ts"], r["te"] - r["tf"], "length", cached=r["hit"])
            e.success["length"] += 0
    act = [r for r in reqs if r["ts"] <= t < r["te"]]
    e.running = len(act)
    e.waiting = 0
    e.kv = sum(-(-(r["p"] + max(0, int((t - r["tf"]) / r["itl"]))) // BS) for r in act) / NBLK
    # engine steps: decode iterations of ~10 tokens; approximated by token counts
    steps = e.c["gen"] // 9
    e.h["vllm:iteration_tokens_total"].observe(9, steps)
    scrapes.append({"t": T0 + t, "status": 200, "text": render({0: e}, MODEL, CI, line="0.11")})
    if t % 10 == 0 and t > 0:
        dp = (e.c["prompt"] - lastlog["p"]) / 10.0
        dg = (e.c["gen"] - lastlog["g"]) / 10.0
        idle = not any((dp, dg) + lastrate)
        lastrate = (dp, dg)
        dq = e.c["prefix_q"]; dh = e.c["prefix_h"]
        lastlog.update(p=e.c["prompt"], g=e.c["gen"])
        hs = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(T0 + t)) + ".%03d" % rnd.randint(0, 999)
        if not idle:
            logs.append(f"INFO {hs} loggers.py:123] Engine 000: Avg prompt throughput: {dp:.1f} tokens/s, "
                        f"Avg generation throughput: {dg:.1f} tokens/s, Running: {e.running} reqs, Waiting: 0 reqs, "
                        f"GPU KV cache usage: {e.kv*100:.1f}%, Prefix cache hit rate: {(dh/dq*100 if dq else 0):.1f}%\n")

write_bundle(OUT,
    {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://bench-h100:8000",
     "started_at": T0, "ended_at": T0 + IV * (N - 1), "interval_s": float(IV),
     "notes": "aiperf concurrency 10, ISL 200: request-count 50, then request-count 1000; TTFT better in the long run"},
    scrapes,
    server={"version": {"version": "0.11.0"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                       "root": MODEL, "max_model_len": MML}]}, "health": 200},
    engine_args={"argv": None, "args": {"model": MODEL, "max-model-len": MML, "gpu-memory-utilization": 0.9}},
    model_config={"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                  "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
                  "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16", "vocab_size": 128256},
    gpu=[{"t": T0 + k * IV, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
          "memory_used": 76400000000, "processes": [{"pid": 412, "name": "python3", "used_memory": 75870000000}]}]}
         for k in range(N)],
    logs="".join(logs))
print("end1", round(end1, 1), "end2", round(end2, 1))
