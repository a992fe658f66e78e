"""zys-agent-52k-prompts-pool-288k: 9 closed-loop agent sessions (47-56K-token prompts) on one
engine whose KV pool holds 288,493 tokens (Tanguille/cluster PR #4578, before the cap)."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from v1sim import Sim, Req, step2, exposition, fnum  # noqa: E402
from bundle_io import write_bundle, ts  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CID = "zys-agent-52k-prompts-pool-288k"
MODEL = "qwen38-27b"
MML = 131072
POOL = 288493
T0 = 1787234400.0      # 2026-08-20 10:00:00 UTC, first scrape
BURN = 900.0           # the server was already under this load for 15 min
INTERVAL = 10.0
N = 61
SESSIONS = 9
rng = random.Random(4578)

sim = Sim(pool=294400, max_seqs=16, budget=4000, tick=0.5, dec_per_tick=13, dec_mixed_per_tick=6, req_overhead=2400)
from v1sim import Hist, b125  # noqa: E402
sim.h["maxgen"] = Hist(b125(MML))
nxt = {s: T0 - BURN + rng.uniform(0, 20) for s in range(SESSIONS)}
rid = [0]
busy = {}


def arrivals(t):
    out = []
    for s in range(SESSIONS):
        if s not in busy and nxt[s] <= t:
            rid[0] += 1
            r = Req(rid[0], s, t, rng.randint(47000, 56000), rng.randint(300, 1500), 8192, cached=5120)
            busy[s] = r
            out.append(r)
    return out


cc = {
    "block_size": "800", "user_specified_block_size": "False", "user_specified_mamba_block_size": "False",
    "kv_cache_layout": "None", "prefix_match_unit": "None", "gpu_memory_utilization": "0.92",
    "cache_dtype": "fp8", "is_attention_free": "False", "num_gpu_blocks_override": "None",
    "sliding_window": "None", "enable_prefix_caching": "True", "prefix_caching_hash_algo": "sha256",
    "attn_group_size": "None", "prefix_cache_retention_interval": "0", "kv_cache_dtype_skip_layers": "[]",
    "mamba_page_size_padded": "1638400", "skip_page_size_padded": "None", "mamba_block_size": "800",
    "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto", "mamba_cache_mode": "align",
    "enable_mamba_fine_grained_prefix_cache": "False", "replayssm_buffer_len": "16", "use_replayssm": "False",
    "use_kda_recoverssm": "False", "num_gpu_blocks": "368", "num_cpu_blocks": "None",
    "effective_attention_block_size": "800", "kv_cache_size_tokens": "288493",
    "kv_cache_max_concurrency": "2.2010269165039062", "kv_sharing_fast_prefill": "False",
    "kv_cache_memory_bytes": "9663676416", "kv_offloading_size": "None", "kv_offloading_backend": "native",
    "_block_size_resolved": "True",
}

scrapes, logs, gpu = [], [], []
t = T0 - BURN
last_log = (t, 0, 0)
pre = "(APIServer pid=1) "
done_reasons = {"stop": 0, "length": 0, "abort": 0}
ndone_seen = 0
while t <= T0 + (N - 1) * INTERVAL + 1e-6:
    for r in arrivals(t):
        sim.waiting.append(r)
    step2(sim, t)
    t = round(t + sim.tick, 6)
    for r in sim.done[ndone_seen:]:
        done_reasons["stop"] += 1
        busy.pop(r.sess, None)
        nxt[r.sess] = t
    for r in arrivals(t):
        sim.waiting.append(r)
    ndone_seen = len(sim.done)
    if abs((t - T0) / 10 - round((t - T0) / 10)) < 1e-9:
        # stats line every 10 s
        lt, lp, lg = last_log
        pt = (sim.c["prompt"] - lp) / (t - lt)
        gt = (sim.c["gen"] - lg) / (t - lt)
        hr = 100.0 * sim.c["ph"] / sim.c["pq"] if sim.c["pq"] else 0.0
        if t > T0 - 120:
            logs.append(f"{pre}INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                        f"Avg generation throughput: {gt:.1f} tokens/s, Running: {len(sim.running)} reqs, "
                        f"Waiting: {len(sim.waiting)} reqs, GPU KV cache usage: {100*min(1,sim.used/sim.pool):.1f}%, "
                        f"Prefix cache hit rate: {hr:.1f}%")
        last_log = (t, sim.c["prompt"], sim.c["gen"])
    if t >= T0 - 1e-6 and abs((t - T0) / INTERVAL - round((t - T0) / INTERVAL)) < 1e-9 and len(scrapes) < N:
        text = exposition(sim, MODEL, MML, cc, dict(done_reasons))
        scrapes.append({"t": t, "status": 200, "text": text})
        used = 54.1e9 + 9663676416 + 4.3e9 + 0.05e9 * rng.random()
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                    "memory_total": 102641958912, "memory_used": int(used),
                    "processes": [{"pid": 2211, "name": "VLLM::EngineCore", "used_memory": int(used - 0.6e9)}]}]})

import json
snap = [(s["t"], s["text"]) for s in scrapes]
def val(text, name):
    for ln in text.splitlines():
        if ln.startswith(name + "{"):
            return float(ln.rsplit(" ", 1)[1])
p0, p1 = val(snap[0][1], "vllm:num_preemptions_total"), val(snap[-1][1], "vllm:num_preemptions_total")
print("preemptions in window", p1 - p0, "first", p0)
for tt, tx in snap[::6]:
    print(int(tt - T0), "run", val(tx, "vllm:num_requests_running"), "wait", val(tx, "vllm:num_requests_waiting"),
          "usage", round(val(tx, "vllm:kv_cache_usage_perc"), 3), "pre", val(tx, "vllm:num_preemptions_total"),
          "prompt", val(tx, "vllm:prompt_tokens_total"), "pq", val(tx, "vllm:prefix_cache_queries_total"),
          "ttft_n", val(tx, "vllm:time_to_first_token_seconds_count"), "ttft_sum", val(tx, "vllm:time_to_first_token_seconds_sum"))
if "--write" in sys.argv:
    print("write")
us = [val(tx, "vllm:kv_cache_usage_perc") for _, tx in snap]
print("usage>=0.9 frac", sum(u >= 0.9 for u in us) / len(us), "min", min(us), "max", max(us))
rw = [(val(tx, "vllm:num_requests_running"), val(tx, "vllm:num_requests_waiting")) for _, tx in snap]
print("running", sorted(set(r for r, _ in rw)), "waiting", sorted(set(w for _, w in rw)), "sum", sorted(set(r + w for r, w in rw)))
if "--write" in sys.argv:
    st = T0 - BURN - 75
    boot = [
        f"(APIServer pid=1) INFO {ts(st)} [api_server.py:1896] vLLM API server version 0.20.1",
        f"(APIServer pid=1) INFO {ts(st)} [utils.py:328] non-default args: {{'model_tag': '/models/qwen38-27b', 'served_model_name': ['{MODEL}'], 'max_model_len': 131072, 'kv_cache_memory_bytes': 9663676416, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 16}}",
        f"(EngineCore_DP0 pid=212) INFO {ts(st + 48)} [gpu_model_runner.py:4566] Model loading took 50.38 GiB memory and 41.203118 seconds",
        f"(EngineCore_DP0 pid=212) INFO {ts(st + 61)} [kv_cache_utils.py:1305] GPU KV cache size: 288,493 tokens",
        f"(EngineCore_DP0 pid=212) INFO {ts(st + 61)} [kv_cache_utils.py:1310] Maximum concurrency for 131,072 tokens per request: 2.20x",
        f"(APIServer pid=1) INFO {ts(st + 74)} [api_server.py:1967] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    text = "\n".join(boot + logs) + "\n"
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://qwen38-27b-vllm.llm.svc:8000",
                "started_at": scrapes[0]["t"], "ended_at": scrapes[-1]["t"], "interval_s": INTERVAL,
                "notes": "captured before the per-deployment litellm cap; agent sessions from hermes and the qwen-3.8-fast alias"}
    server = {"version": {"version": "0.20.1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                                     "root": "/models/qwen38-27b", "max_model_len": MML}]},
              "health": 200}
    args = {"argv": ["vllm", "serve", "/models/qwen38-27b", "--served-model-name", MODEL, "--max-model-len", "131072",
                     "--kv-cache-memory", "9663676416", "--kv-cache-dtype", "fp8", "--max-num-seqs", "16",
                     "--enable-prefix-caching", "--port", "8000"],
            "args": {"model": "/models/qwen38-27b", "served-model-name": MODEL, "max-model-len": 131072,
                     "kv-cache-memory": 9663676416, "kv-cache-dtype": "fp8", "max-num-seqs": 16,
                     "enable-prefix-caching": True}}
    lt = (["linear_attention"] * 3 + ["full_attention"]) * 16
    mc = {"architectures": ["Qwen3_5ForCausalLM"], "model_type": "qwen3_5_text", "hidden_size": 5120,
          "intermediate_size": 17408, "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4,
          "head_dim": 256, "layer_types": lt, "full_attention_interval": 4, "linear_num_key_heads": 16,
          "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
          "linear_conv_kernel_dim": 4, "max_position_embeddings": 262144, "rope_theta": 10000000,
          "vocab_size": 248320, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    write_bundle(ROOT / "cases" / CID / "bundle", manifest, scrapes, server, args, mc, gpu, text)
    print("written")
